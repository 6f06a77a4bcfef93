import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { exportRows, type ExportRequest } from '../../src/export-engine/index.ts';
import type { Warehouse } from '../../src/graph/warehouse.ts';
import { graphPersonIdEncoder } from '../../src/identity/person-id.ts';
import { catalogFields, exportWarehouse, readAvro, readCsv, readJsonLines, tempDir } from './helpers.ts';

const personIds = { orgId: 'org_matched_test', orgClientCode: 'MT', secret: 'matched-secret' };
const encode = graphPersonIdEncoder(personIds);
let wh: Warehouse;
let rowsFile: string;
/** The customer's file: [row_id, person_key | null, email (input echo), continuity id]. */
let input: { row_id: string; person_key: bigint | null; email: string; cid: string | null }[];
let members: Set<bigint>;
let extra: bigint[];

beforeAll(async () => {
  wh = await exportWarehouse();
  const persons = (
    await wh.query<{ person_key: number; age: number }>('SELECT person_key, age FROM graph.persons ORDER BY person_key LIMIT 60')
  ).map((p) => ({ key: BigInt(p.person_key), old: p.age >= 40 }));
  // Matched rows (old and young persons, one person twice) interleaved with unmatched rows.
  input = [];
  persons.slice(0, 40).forEach((p, i) => {
    input.push({ row_id: `r${input.length}`, person_key: p.key, email: `p${i}@example.com`, cid: null });
    if (i % 5 === 0)
      input.push({
        row_id: `r${input.length}`,
        person_key: null,
        email: `stranger${i}@example.com`,
        cid: i % 10 === 0 ? `MT_02_${'A'.repeat(32)}` : null,
      });
  });
  input.push({ row_id: 'dup', person_key: persons[0]!.key, email: 'again@example.com', cid: null });
  members = new Set(
    persons
      .slice(0, 40)
      .filter((p) => p.old)
      .map((p) => p.key),
  );
  extra = persons
    .slice(50)
    .filter((p) => p.old)
    .map((p) => p.key)
    .slice(0, 3);
  rowsFile = path.join(tempDir('matched-src'), 'rows.parquet');
  const values = input
    .map((r) => `(${[`'${r.row_id}'`, r.person_key ?? 'NULL', `'${r.email}'`, r.cid ? `'${r.cid}'` : 'NULL'].join(', ')})`)
    .join(', ');
  await wh.query(`COPY (SELECT * FROM (VALUES ${values}) t(row_id, person_key, email, continuity_id)) TO '${rowsFile}' (FORMAT parquet)`);
}, 120_000);

/** Members: the file's matched persons aged 40+ (the matched segment after a filter), plus `extra`. */
const request = (over: Partial<ExportRequest> & { includeUnmatched: boolean; withExtra?: boolean }): ExportRequest => ({
  warehouse: wh,
  personIds,
  format: 'csv',
  compression: 'none',
  outputDir: tempDir('matched'),
  fields: catalogFields(['age', 'gender']),
  members: {
    sql: `SELECT p.person_key FROM graph.persons p WHERE p.age >= 40 AND (p.person_key IN (SELECT person_key FROM read_parquet('${rowsFile}'))
      OR p.person_key IN (${over.withExtra && extra.length ? extra.join(', ') : 'NULL'}))`,
  },
  matched: {
    path: rowsFile,
    includeUnmatched: over.includeUnmatched,
    echo: [{ column: 'email', name: 'input_email' }],
    unmatchedIdColumn: 'continuity_id',
  },
  ...over,
});

describe('export of a matched audience', () => {
  it('carries row_id on every matched member row, in the file order, and no unmatched rows by default', async () => {
    const result = await exportRows(request({ includeUnmatched: false }));
    expect(result.columns).toEqual(['row_id', 'iag_person_id', 'age', 'gender', 'input_email']);
    const rows = readCsv(result.parts[0]!.path);
    const expected = input.filter((r) => r.person_key !== null && members.has(r.person_key));
    expect(rows.map((r) => r.row_id)).toEqual(expected.map((r) => r.row_id));
    expect(rows.map((r) => r.iag_person_id)).toEqual(expected.map((r) => encode(r.person_key!)));
    expect(rows.every((r) => r.input_email === '' && Number(r.age) >= 40)).toBe(true);
    expect(result.output_record_count).toBe(expected.length);
  });

  it('include_unmatched adds the unmatched input rows in place, with their echo and best-effort id', async () => {
    const result = await exportRows(request({ includeUnmatched: true, format: 'jsonl' }));
    const lines = readJsonLines(result.parts[0]!.path);
    const expected = input.filter((r) => r.person_key === null || members.has(r.person_key));
    expect(lines.map((l) => l.row_id)).toEqual(expected.map((r) => r.row_id));
    lines.forEach((l, i) => {
      const r = expected[i]!;
      if (r.person_key === null) {
        expect(l).toEqual({ row_id: r.row_id, iag_person_id: r.cid, age: null, gender: null, input_email: r.email });
      } else {
        expect(l.iag_person_id).toBe(encode(r.person_key));
        expect(l.input_email).toBeNull();
      }
    });
    const avro = await readAvro((await exportRows(request({ includeUnmatched: true, format: 'avro' }))).parts[0]!.path);
    expect(avro.records.map((r) => r.row_id)).toEqual(expected.map((r) => r.row_id));
  });

  it('members without a source row (another segment of the audience) follow, by key, without a row_id', async () => {
    expect(extra.length).toBeGreaterThan(0);
    const rows = readCsv((await exportRows(request({ includeUnmatched: false, withExtra: true }))).parts[0]!.path);
    const tail = rows.slice(rows.length - extra.length);
    expect(tail.map((r) => r.row_id)).toEqual(extra.map(() => ''));
    expect(tail.map((r) => r.iag_person_id)).toEqual([...extra].sort((a, b) => (a < b ? -1 : 1)).map((k) => encode(k)));
  });
});
