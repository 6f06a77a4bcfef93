/**
 * membershipSql against a tiny in-memory `graph.discovery_persons` (no generated graph needed): set logic,
 * exclusions with NULL columns, the record-limited stable subset and Parquet member sets.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FilterGroup } from '../../src/graph/filters/index.ts';
import { membershipSql } from '../../src/graph/membership/sql.ts';
import type { MembershipQuery, SegmentMembership } from '../../src/graph/membership/types.ts';
import type { CatalogField } from '../../src/graph/field-types.ts';

const field = (name: string, type: CatalogField['type']): CatalogField => ({
  name,
  type,
  description: '',
  category: 'test',
  filterable: true,
  aliases: [],
  pii: false,
  tags: [],
  enrichment_price_cents: 0,
  operators: ['=', '!=', '<', '>=', 'IN', 'IS NULL'],
  storage: { kind: 'column', column: name },
});
const CATALOG = [field('state', 'STRING'), field('age', 'INTEGER')];
const group = (filters: FilterGroup['filters']): FilterGroup[] => [{ id: 'g', combinator: 'AND', filters }];
const filterSeg = (filters: FilterGroup['filters'], recordLimit: number | null = null, subsetSeed = 'v1'): SegmentMembership => ({
  kind: 'filter',
  segmentId: 'seg',
  groups: group(filters),
  recordLimit,
  subsetSeed,
});

describe('membershipSql', () => {
  let conn: DuckDBConnection;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ads-mem-'));
    conn = await (await DuckDBInstance.create(':memory:')).connect();
    await conn.run(`ATTACH ':memory:' AS graph`);
    // 1000 persons: state cycles CA/TX/NY/NULL, age = key % 90 with NULL every 7th.
    await conn.run(`CREATE TABLE graph.discovery_persons AS SELECT range::BIGINT AS person_key,
      CASE range % 4 WHEN 0 THEN 'CA' WHEN 1 THEN 'TX' WHEN 2 THEN 'NY' END AS state,
      CASE WHEN range % 7 = 0 THEN NULL ELSE (range % 90)::INT END AS age FROM range(1000)`);
    await conn.run(`COPY (SELECT range::BIGINT AS person_key FROM range(0, 1000, 5)) TO '${dir}/m.parquet' (FORMAT parquet)`);
  });
  afterAll(() => conn.closeSync());

  const keys = async (q: MembershipQuery): Promise<number[]> => {
    const m = membershipSql(q, { catalog: CATALOG });
    const reader = await conn.runAndReadAll(`${m.select} ORDER BY 1`, m.params as never);
    return reader.getRowsJS().map((r) => Number(r[0]));
  };
  const all = Array.from({ length: 1000 }, (_, i) => i);
  const state = (i: number) => ['CA', 'TX', 'NY', null][i % 4];
  const age = (i: number) => (i % 7 === 0 ? null : i % 90);
  const comp = (
    include: SegmentMembership[],
    exclude: SegmentMembership[] = [],
    setLogic: 'union' | 'intersection' = 'union',
  ): MembershipQuery => ({ kind: 'composition', composition: { include, exclude, setLogic } });

  it('union, intersection, and exclusions that keep rows whose excluded column is NULL', async () => {
    const ca = filterSeg([{ field: 'state', op: '=', value: 'CA' }]);
    const old = filterSeg([{ field: 'age', op: '>=', value: 60 }]);
    expect(await keys(comp([ca, old]))).toEqual(all.filter((i) => state(i) === 'CA' || (age(i) ?? -1) >= 60));
    expect(await keys(comp([ca, old], [], 'intersection'))).toEqual(all.filter((i) => state(i) === 'CA' && (age(i) ?? -1) >= 60));
    // NULL age is not in "age >= 60", so excluding that segment keeps those persons.
    expect(await keys(comp([ca], [old]))).toEqual(all.filter((i) => state(i) === 'CA' && !((age(i) ?? -1) >= 60)));
  });

  it('counts a union as disjoint terms with the same n and m as the member set (NULLs, caps, exclusions)', async () => {
    const matched: SegmentMembership = { kind: 'members', segmentId: 'm', subtype: 'matched', parquetPath: `${dir}/m.parquet` };
    const ca = filterSeg([{ field: 'state', op: '=', value: 'CA' }]);
    const old = filterSeg([{ field: 'age', op: '>=', value: 60 }]);
    const young = filterSeg([{ field: 'age', op: '<', value: 20 }]);
    const capped = filterSeg([{ field: 'state', op: '=', value: 'TX' }], 40, 'v1');
    const isOld = (i: number) => (age(i) ?? -1) >= 60;
    const isYoung = (i: number) => age(i) !== null && age(i)! < 20;
    const cappedKeys = new Set(await keys(comp([capped])));
    const cases: [MembershipQuery, (i: number) => boolean][] = [
      [comp([ca, old, matched], [young]), (i) => (state(i) === 'CA' || isOld(i) || i % 5 === 0) && !isYoung(i)],
      [comp([capped, old]), (i) => cappedKeys.has(i) || isOld(i)],
      [comp([old, ca], [matched]), (i) => (isOld(i) || state(i) === 'CA') && i % 5 !== 0],
      [comp([ca, old], [], 'intersection'), (i) => state(i) === 'CA' && isOld(i)],
      [comp([ca]), (i) => state(i) === 'CA'],
    ];
    for (const [q, member] of cases) {
      const expected = all.filter(member);
      expect(await keys(q)).toEqual(expected);
      const m = membershipSql(q, { catalog: CATALOG });
      const [n, mm] = (await conn.runAndReadAll(m.count, m.params as never)).getRowsJS()[0]!;
      expect(Number(n)).toBe(expected.length);
      const hasMatched = q.kind === 'composition' && q.composition.include.includes(matched);
      expect(mm === null ? null : Number(mm)).toBe(hasMatched ? expected.filter((i) => i % 5 === 0).length : null);
    }
    expect(membershipSql(cases[0]![0], { catalog: CATALOG }).count).toContain('UNION ALL');
    expect(membershipSql(cases[3]![0], { catalog: CATALOG }).count).not.toContain('UNION ALL');
  });

  it('record_limit takes a stable pseudo-random subset per segment and seed', async () => {
    const capped = (seed: string) => comp([filterSeg([{ field: 'state', op: '=', value: 'TX' }], 40, seed)]);
    const a = await keys(capped('v1'));
    expect(a).toHaveLength(40);
    expect(a.every((i) => state(i) === 'TX')).toBe(true);
    expect(await keys(capped('v1'))).toEqual(a);
    expect(await keys(capped('v2'))).not.toEqual(a);
    // Not simply the first 40 keys.
    expect(a).not.toEqual(all.filter((i) => state(i) === 'TX').slice(0, 40));
    // The cap applies before set logic: union with another segment adds to the 40.
    const union = await keys(
      comp([filterSeg([{ field: 'state', op: '=', value: 'TX' }], 40), filterSeg([{ field: 'state', op: '=', value: 'NY' }])]),
    );
    expect(union).toHaveLength(40 + 250);
  });

  it('materialized sets via Parquet; nothing materialized is the empty set; matchedWhere marks matched members', async () => {
    const matched: SegmentMembership = { kind: 'members', segmentId: 'm', subtype: 'matched', parquetPath: `${dir}/m.parquet` };
    const pending: SegmentMembership = { kind: 'members', segmentId: 'p', subtype: 'similarity', parquetPath: null };
    expect(await keys(comp([matched]))).toEqual(all.filter((i) => i % 5 === 0));
    expect(await keys(comp([matched, filterSeg([{ field: 'state', op: '=', value: 'CA' }])], [], 'intersection'))).toEqual(
      all.filter((i) => i % 5 === 0 && state(i) === 'CA'),
    );
    expect(await keys(comp([pending]))).toEqual([]);
    const m = membershipSql(comp([matched, filterSeg([{ field: 'state', op: '=', value: 'NY' }])]), { catalog: CATALOG, paramOffset: 2 });
    expect(m.matchedWhere).not.toBeNull();
    expect(m.params.length).toBe(1);
    expect(m.where).toContain('$3');
    const r = await conn.runAndReadAll(
      `SELECT count(*) n, count(*) FILTER (WHERE ${m.matchedWhere}) mm FROM graph.discovery_persons p WHERE $1 = $2 AND ${m.where}`,
      [1, 1, ...m.params] as never,
    );
    const [n, mm] = r.getRowsJS()[0]!.map(Number);
    expect(n).toBe(all.filter((i) => i % 5 === 0 || state(i) === 'NY').length);
    expect(mm).toBe(200);
  });
});
