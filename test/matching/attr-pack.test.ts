/**
 * The packed enrichment table of the match index (identity/matcher/attr-pack.ts): the layout, and
 * readEnrichment over it returning exactly what reading the persons columns returns, for every catalog
 * field, through the service's warehouse client and the test client, packed and unpacked columns alike.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOG_FIELDS } from '../../src/graph/person-fields.ts';
import { openWarehouse, type Warehouse } from '../../src/graph/warehouse.ts';
import { codeBits, createPackedAttrs, packLayout } from '../../src/identity/matcher/attr-pack.ts';
import { decode, readEnrichment, warmEnrichment, type EnrichmentReader } from '../../src/identity/matcher/enrichment.ts';
import { openWarehouseOn, testGraph, TEST_GRAPH_DIR, type TestGraph } from './helpers.ts';

let g: TestGraph;
let service: Warehouse;
let keys: bigint[];

beforeAll(async () => {
  g = await testGraph(TEST_GRAPH_DIR, 4000);
  service = await openWarehouse({ dataDir: g.dataDir, threads: 1, connections: 2, memoryLimit: '512MB' });
  await service.query(`ATTACH IF NOT EXISTS '${g.indexPath}' AS mx_pack (READ_ONLY)`);
  // Every 17th person, plus one key that is not in the graph.
  keys = (await g.warehouse.query('SELECT person_key FROM graph.persons WHERE person_key % 17 = 3 ORDER BY person_key'))
    .map((r) => BigInt(r.person_key as bigint))
    .concat([999_999_999n]);
}, 600_000);

afterAll(async () => {
  await service?.close();
  g?.warehouse.close();
});

/** The reference: the persons columns of the release, decoded as the response decodes them. */
async function fromPersons(w: EnrichmentReader) {
  const cols = [...new Set(CATALOG_FIELDS.map((f) => f.storage.column))];
  const rows = await w.query(`SELECT person_key, ${cols.join(', ')} FROM graph.persons WHERE person_key IN (${keys.join(', ')})`);
  return new Map(
    rows.map((r) => [
      BigInt(r.person_key as bigint),
      Object.fromEntries(CATALOG_FIELDS.map((f) => [f.name, decode(f, r[f.storage.column])])),
    ]),
  );
}

describe('packLayout', () => {
  it('gives each column ceil(log2(distinct + 1)) bits and starts a word when the next column does not fit', () => {
    expect([0, 1, 2, 3, 4, 1000, 131_072].map(codeBits)).toEqual([1, 1, 2, 2, 3, 10, 18]);
    expect(
      packLayout([
        { column: 'a', distinct: 1 },
        { column: 'b', distinct: 3 },
        { column: 'c', distinct: 1000 },
        { column: 'd', distinct: 2 ** 40 },
        { column: 'e', distinct: 2 ** 20 },
        { column: 'f', distinct: 5 },
      ]),
    ).toEqual([
      { column: 'a', word: 0, shift: 0, bits: 1 },
      { column: 'b', word: 0, shift: 1, bits: 2 },
      { column: 'c', word: 0, shift: 3, bits: 10 },
      { column: 'd', word: 0, shift: 13, bits: 41 },
      { column: 'e', word: 1, shift: 0, bits: 21 },
      { column: 'f', word: 1, shift: 21, bits: 3 },
    ]);
  });
});

describe('readEnrichment over the packed m_attr', () => {
  it('returns every catalog field exactly as the persons columns hold it (service warehouse, built index)', async () => {
    const layout = await service.query('SELECT column_name FROM mx_pack.m_attr_layout');
    expect(layout.length).toBeGreaterThan(20);
    const expected = await fromPersons(service);
    const got = await readEnrichment(service, { table: 'mx_pack.m_attr', ways: 2 }, keys, CATALOG_FIELDS);
    expect(got.size).toBe(keys.length - 1); // the absent key has no row
    expect(got.has(999_999_999n)).toBe(false);
    expect(got).toEqual(expected);
    // After the warm-up (every dictionary loaded) the answer is the same.
    expect(await warmEnrichment(service, 'mx_pack.m_attr')).toBeGreaterThan(0);
    expect(await readEnrichment(service, { table: 'mx_pack.m_attr', ways: 1 }, keys, CATALOG_FIELDS)).toEqual(expected);
  });

  it('reads a subset of fields, and columns left unpacked, the same way (test client, low cap)', async () => {
    const w = await openWarehouseOn(g.releaseFile);
    try {
      const q = (sql: string) => w.query(sql);
      const layout = await createPackedAttrs(q, q, 'graph.persons', 500);
      const packed = new Set(layout.map((p) => p.column));
      // Low-cardinality columns packed, names, addresses and coordinates left as columns.
      for (const c of ['gender', 'state', 'income_band', 'has_email']) expect(packed.has(c)).toBe(true);
      for (const c of ['last_name', 'address_1', 'lat']) expect(packed.has(c)).toBe(false);
      const expected = await fromPersons(w);
      expect(await readEnrichment(w, { table: 'memory.m_attr', ways: 1 }, keys, CATALOG_FIELDS)).toEqual(expected);
      const some = CATALOG_FIELDS.filter((f) => ['last_name', 'interests', 'city', 'age'].includes(f.name));
      expect(some.length).toBe(4);
      const subset = await readEnrichment(w, { table: 'memory.m_attr', ways: 1 }, keys, some);
      for (const [k, attrs] of subset) {
        expect(Object.keys(attrs).sort()).toEqual(['age', 'city', 'interests', 'last_name']);
        for (const f of some) expect(attrs[f.name]).toEqual(expected.get(k)![f.name]);
      }
    } finally {
      w.close();
    }
  });
});
