import type { PGlite, Transaction } from '@electric-sql/pglite';
import {
  CompiledQuery,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
} from 'kysely';

/**
 * A Kysely dialect for PGlite whose transactions go through `pglite.transaction()`.
 *
 * Why not a bare BEGIN: PGlite is one connection. A bare BEGIN sent by Kysely leaves every other
 * caller of the same PGlite (pg-boss above all) free to send statements that then land inside our
 * transaction. `pglite.transaction()` holds PGlite's exclusive lock for the whole transaction, so
 * other callers wait until it commits or rolls back, as they would on a pooled PostgreSQL.
 */
export class PGliteDialect implements Dialect {
  constructor(private readonly pglite: PGlite) {}
  createAdapter() {
    return new PostgresAdapter();
  }
  createDriver(): Driver {
    return new PGliteDriver(this.pglite);
  }
  createIntrospector(db: Kysely<any>) {
    return new PostgresIntrospector(db);
  }
  createQueryCompiler() {
    return new PostgresQueryCompiler();
  }
}

class PGliteConnection implements DatabaseConnection {
  /** Set while this connection runs a transaction: statements go to it instead of the instance. */
  tx: Transaction | null = null;
  finishTx: ((outcome: 'commit' | 'rollback') => void) | null = null;
  txDone: Promise<unknown> | null = null;

  constructor(private readonly pglite: PGlite) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const target = this.tx ?? this.pglite;
    const result = await target.query<R>(query.sql, query.parameters as unknown[]);
    return {
      rows: result.rows,
      numAffectedRows: result.affectedRows === undefined ? undefined : BigInt(result.affectedRows),
    };
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('PGlite dialect does not stream; page the query instead');
  }
}

class PGliteDriver implements Driver {
  constructor(private readonly pglite: PGlite) {}

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    return new PGliteConnection(this.pglite);
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    const conn = connection as PGliteConnection;
    await new Promise<void>((started, failedToStart) => {
      conn.txDone = this.pglite
        .transaction(async (tx) => {
          conn.tx = tx;
          const outcome = await new Promise<'commit' | 'rollback'>((finish) => {
            conn.finishTx = finish;
            started();
          });
          if (outcome === 'rollback') await tx.rollback();
        })
        .catch((error: unknown) => {
          failedToStart(error);
          throw error;
        });
    });
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await this.finish(connection as PGliteConnection, 'commit');
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await this.finish(connection as PGliteConnection, 'rollback');
  }

  private async finish(conn: PGliteConnection, outcome: 'commit' | 'rollback'): Promise<void> {
    const done = conn.txDone;
    conn.finishTx?.(outcome);
    conn.tx = null;
    conn.finishTx = null;
    conn.txDone = null;
    await done;
  }

  async releaseConnection(): Promise<void> {}

  async destroy(): Promise<void> {}
}

/** Runs raw SQL text with parameters on a Kysely instance or transaction (used by the job queue). */
export function rawQuery(db: Kysely<any>, text: string, values: readonly unknown[] = []) {
  return db.executeQuery(CompiledQuery.raw(text, [...values]));
}
