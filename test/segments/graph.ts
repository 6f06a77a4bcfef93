/**
 * A small generated graph shared by the segment tests of one worker (generated once, ~5 s), a DuckDB
 * reader over it, and an independent counter the tests check the service against.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { RELEASE_LAYOUT, readCurrentRelease, releaseFilePath } from '../../src/graph/releases.ts';
import type { CatalogField, FilterOperator } from '../../src/graph/field-types.ts';
import { warehouseGraphPorts, type GraphPorts } from '../../src/modules/segments/index.ts';
import { sharedGraph } from '../helpers/shared-graph.ts';

export const PERSONS = 3000;

export interface TestGraph {
  dataDir: string;
  conn: DuckDBConnection;
  ports: GraphPorts;
  /** Person keys matching a SQL predicate over `graph.persons p` (the independent oracle). */
  keys(where: string): Promise<Set<bigint>>;
}

let shared: Promise<TestGraph> | null = null;

const EQ: FilterOperator[] = ['=', '!=', 'IN', 'NOT IN', 'IS NULL', 'IS NOT NULL'];
const ORD: FilterOperator[] = [...EQ, '<', '<=', '>', '>=', 'BETWEEN'];
function field(name: string, type: CatalogField['type'], operators: FilterOperator[], extra: Partial<CatalogField> = {}): CatalogField {
  return {
    name,
    type,
    operators,
    description: name,
    category: 'test',
    filterable: true,
    aliases: [],
    pii: false,
    tags: ['audience'],
    enrichment_price_cents: 0,
    storage: { kind: 'column', column: name },
    ...extra,
  };
}
/** Used only when the real catalog (src/modules/catalog/fields.ts) is not in the tree yet. */
const FALLBACK_CATALOG: CatalogField[] = [
  field('state', 'STRING', EQ, { stored_upper: true }),
  field('city', 'STRING', [...EQ, 'LIKE'], { stored_upper: true }),
  field('zip5', 'STRING', [...EQ, 'LIKE'], { aliases: ['zip', 'zip_code', 'postal_code'] }),
  field('zip3', 'STRING', EQ),
  field('age', 'INTEGER', ORD),
  field('gender', 'STRING', EQ),
  field('homeowner', 'BOOLEAN', EQ),
];

async function loadCatalog(): Promise<readonly CatalogField[]> {
  const file = path.resolve(import.meta.dirname, '../../src/graph/person-fields.ts');
  if (fs.existsSync(file)) {
    const mod = (await import(file)) as { CATALOG_FIELDS?: readonly CatalogField[] };
    if (mod.CATALOG_FIELDS) return mod.CATALOG_FIELDS;
  }
  return FALLBACK_CATALOG;
}

export function testGraph(): Promise<TestGraph> {
  shared ??= (async () => {
    // Deterministic for a seed and size, so one copy per machine is reused across runs.
    const dataDir = path.join(os.tmpdir(), `ads-seg-graph-${PERSONS}-42-l${RELEASE_LAYOUT}`);
    await sharedGraph(dataDir, { persons: PERSONS, seed: 42, releaseDate: '2026-01-01', threads: 1, memoryLimit: '512MB' });
    const release = readCurrentRelease(dataDir)!;
    const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
    const conn = await instance.connect();
    await conn.run(`ATTACH '${releaseFilePath(dataDir, release)}' AS graph (READ_ONLY)`);
    const catalog = await loadCatalog();
    const warehouse = {
      async query(sql: string, params: readonly unknown[] = []) {
        const reader = await conn.runAndReadAll(sql, params as never);
        return reader.getRowObjectsJS() as Record<string, unknown>[];
      },
      release: () => readCurrentRelease(dataDir)!,
    };
    const ports = warehouseGraphPorts({ warehouse, catalog: async () => catalog, currentRelease: () => readCurrentRelease(dataDir) });
    return {
      dataDir,
      conn,
      ports,
      async keys(where) {
        const rows = (await conn.runAndReadAll(`SELECT person_key FROM graph.persons p WHERE ${where}`)).getRowsJS();
        return new Set(rows.map((r) => BigInt(r[0] as bigint)));
      },
    };
  })();
  return shared;
}
