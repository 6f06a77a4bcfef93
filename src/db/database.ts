import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, PostgresDialect } from 'kysely';
import { Migrator } from 'kysely/migration';
import pg from 'pg';
import { acquireEmbeddedLock } from './embedded-lock.ts';
import { loadMasterKeys, type MasterKey } from './master-key.ts';
import { migrationProvider } from './migrations/index.ts';
import { PGliteDialect } from './pglite-dialect.ts';
import type { DB } from './schema.ts';

export type DatabaseKind = 'pglite' | 'postgres';

/** The control-plane store: a Kysely instance over PGlite (embedded) or PostgreSQL. */
export interface Database {
  kind: DatabaseKind;
  db: Kysely<DB>;
  /** The raw PGlite instance (embedded mode only), for the job queue's adapter. */
  pglite: PGlite | null;
  /** The pg pool (PostgreSQL mode only), shared with the job queue. */
  pool: pg.Pool | null;
  /** The master key and, during a rotation, the one it moves to (src/db/master-key.ts): never stored in the database. */
  masterKeys: MasterKey[];
  close(): Promise<void>;
}

export interface DatabaseOptions {
  databaseUrl: string | null;
  /** Where PGlite keeps its files; null keeps the embedded store in memory (tests). */
  dataDir: string | null;
  poolSize?: number;
  /** Where ADS_MASTER_KEY / MASTER_KEY_FILE are read from (default process.env). */
  env?: NodeJS.ProcessEnv;
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  const database = options.databaseUrl ? openPostgres(options.databaseUrl, options.poolSize ?? 10) : await openPGlite(options.dataDir);
  try {
    database.masterKeys = loadMasterKeys({ env: options.env, dataDir: options.dataDir });
    await migrate(database.db);
  } catch (error) {
    await database.close().catch(() => {});
    throw error;
  }
  return database;
}

function openPostgres(url: string, max: number): Database {
  const pool = new pg.Pool({ connectionString: url, max });
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  return {
    kind: 'postgres',
    db,
    pglite: null,
    pool,
    masterKeys: [],
    close: () => db.destroy(),
  };
}

async function openPGlite(dataDir: string | null): Promise<Database> {
  let release = () => {};
  let pglite: PGlite;
  if (dataDir) {
    release = acquireEmbeddedLock(dataDir);
    mkdirSync(join(dataDir, 'pg'), { recursive: true });
    pglite = await PGlite.create(join(dataDir, 'pg'));
  } else {
    pglite = await PGlite.create();
  }
  const db = new Kysely<DB>({ dialect: new PGliteDialect(pglite) });
  return {
    kind: 'pglite',
    db,
    pglite,
    pool: null,
    masterKeys: [],
    async close() {
      await db.destroy();
      await pglite.close();
      release();
    },
  };
}

export async function migrate(db: Kysely<DB>): Promise<void> {
  // Unordered: areas number their migrations in ranges, so one merged later may sort before one already applied.
  const migrator = new Migrator({ db, provider: migrationProvider, allowUnorderedMigrations: true });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`Migration ${failed?.migrationName ?? ''} failed: ${(error as Error)?.message ?? 'unknown error'}`);
  }
}
