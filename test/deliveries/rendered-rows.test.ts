/**
 * Rendered rows (src/export-engine/rendered): an audience export that copies each member's rendered row
 * and adds its id writes exactly the bytes of the row-by-row engine, in every format and part split; a
 * file that is incomplete or of another field list is never used; a member the file lacks fails the
 * export.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  buildRenderedRows,
  exportRows,
  ExportFailedError,
  isCurrentRenderedRows,
  renderedRowsFileOf,
  type ExportFormat,
  type ExportRequest,
} from '../../src/export-engine/index.ts';
import { fieldColumn } from '../../src/export-engine/columns.ts';
import { openRenderedRows } from '../../src/export-engine/rendered/file.ts';
import { renderedRowsKey } from '../../src/export-engine/rendered/key.ts';
import type { Warehouse } from '../../src/graph/warehouse.ts';
import { graphPersonIdEncoder } from '../../src/identity/person-id.ts';
import { catalogFields, exportWarehouse, readCsv, STANDARD_ENRICHMENT, tempDir } from './helpers.ts';

const personIds = { orgId: 'org_rendered_test', orgClientCode: 'RND', secret: 'rendered-test-secret' };
const fields = catalogFields(STANDARD_ENRICHMENT);
const ADULTS = { sql: 'SELECT person_key FROM graph.persons WHERE age >= 18' };
let wh: Warehouse;
/** A stand-in release file in a folder of this test's own: the sidecars go beside it, the shared graph stays untouched. */
let releaseFile: string;
const files = new Map<string, string>();

const sha = (file: string) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');
const request = (format: ExportFormat, o: Partial<ExportRequest> = {}): ExportRequest => ({
  warehouse: wh,
  members: ADULTS,
  fields,
  personIds,
  format,
  compression: 'none',
  outputDir: tempDir(`rendered-${format}`),
  partRows: 1000,
  ...o,
});
const lookup = (key: string) => [...files.values()].find((p) => p.includes(key)) ?? null;
const digests = (r: Awaited<ReturnType<typeof exportRows>>) =>
  r.parts.map((p) => ({ name: p.name, rows: p.rows, bytes: p.bytes, sha: sha(p.path) }));

beforeAll(async () => {
  wh = await exportWarehouse();
  releaseFile = path.join(tempDir('rendered-release'), 'graph-1.0-20260101T000000-1.duckdb');
  for (const format of ['csv', 'json', 'avro'] as const) {
    const built = await buildRenderedRows({ warehouse: wh, releaseFile, fields, format });
    expect(built.built).toBe(true);
    files.set(format, built.path);
  }
}, 120_000);

describe('rendered rows', () => {
  it("are a sidecar of the release per format family, complete, with the graph's dense keys; a second build is a no-op", async () => {
    const persons = Number((await wh.query<{ n: bigint }>('SELECT count(*) AS n FROM graph.persons'))[0]!.n);
    for (const [format, file] of files) {
      expect(path.dirname(file)).toBe(path.dirname(releaseFile));
      expect(path.basename(file)).toMatch(new RegExp(`^graph-1\\.0-20260101T000000-1\\.rows-v1-${format}-[0-9a-f]{16}\\.bin$`));
      expect(isCurrentRenderedRows(path.basename(file))).toBe(true);
      const { key } = renderedRowsFileOf(releaseFile, fields, format as ExportFormat);
      const reader = openRenderedRows(file, key)!;
      expect(reader.rows).toBe(persons);
      // Generated graphs number persons 1..N: no key section.
      expect(reader.denseFrom).toBe(1);
      reader.close();
    }
    expect(isCurrentRenderedRows('graph-1.0-x.rows-v0-csv-0123456789abcdef.bin')).toBe(false);
    const again = await buildRenderedRows({ warehouse: wh, releaseFile, fields, format: 'csv' });
    expect(again).toMatchObject({ built: false, path: files.get('csv') });
    // json and jsonl write the same lines, so they share one file.
    expect(renderedRowsFileOf(releaseFile, fields, 'jsonl').path).toBe(files.get('json'));
  });

  it('give the same part bytes as the row-by-row engine in every format, across units and part splits', async () => {
    const members = Number((await wh.query<{ n: bigint }>(`SELECT count(*) AS n FROM (${ADULTS.sql})`))[0]!.n);
    // More than one 2,048-row unit, and parts that split units.
    expect(members).toBeGreaterThan(2048);
    for (const [format, compression] of [
      ['csv', 'none'],
      ['csv', 'gzip'],
      ['json', 'none'],
      ['jsonl', 'gzip'],
      ['avro', 'none'],
    ] as const) {
      const engine = await exportRows(request(format, { compression }));
      const rendered = await exportRows(request(format, { compression, renderedRows: lookup }));
      expect(rendered.output_record_count).toBe(members);
      expect(digests(rendered)).toEqual(digests(engine));
      expect(rendered.parts.length).toBe(Math.ceil(members / 1000));
    }
    const rows = readCsv((await exportRows(request('csv', { renderedRows: lookup, partRows: 1_000_000 }))).parts[0]!.path);
    const keys = (await wh.query<{ person_key: bigint }>(`${ADULTS.sql} ORDER BY person_key`)).map((r) => BigInt(r.person_key));
    const encode = graphPersonIdEncoder(personIds);
    expect(rows.map((r) => r.iag_person_id)).toEqual(keys.map((k) => encode(k)));
  });

  it('are what the export reads: a changed byte in the file shows in the output', async () => {
    const dir = tempDir('rendered-tampered');
    const copy = path.join(dir, path.basename(files.get('csv')!));
    const bytes = fs.readFileSync(files.get('csv')!);
    // The first byte of person 1's row (its city, or the comma after an empty one): a character no field holds.
    bytes[0] = '~'.charCodeAt(0);
    fs.writeFileSync(copy, bytes);
    const result = await exportRows(request('csv', { members: { sql: 'SELECT 1 AS person_key' }, renderedRows: () => copy }));
    const line = fs.readFileSync(result.parts[0]!.path, 'utf8').split('\n')[1]!;
    expect(line).toMatch(/^RND_01_[A-Z2-7]{26},~/);
  });

  it('an incomplete file, or one of another field list or format, is not used (the engine exports instead)', async () => {
    const engine = digests(await exportRows(request('csv')));
    const dir = tempDir('rendered-bad');
    const truncated = path.join(dir, 'truncated.bin');
    const whole = fs.readFileSync(files.get('csv')!);
    fs.writeFileSync(truncated, whole.subarray(0, whole.length - 3));
    for (const candidate of [truncated, files.get('avro')!, path.join(dir, 'missing.bin')]) {
      expect(digests(await exportRows(request('csv', { renderedRows: () => candidate })))).toEqual(engine);
    }
    // A matched audience (row_id first, the customer's order) never uses rendered rows: the lookup is not even asked.
    let asked = 0;
    const counting = (key: string) => {
      asked++;
      return lookup(key);
    };
    await exportRows(request('csv', { renderedRows: counting }));
    expect(asked).toBe(1);
    const source = path.join(dir, 'rows.parquet');
    await wh.query(
      `COPY (SELECT 'r' || person_key AS row_id, person_key FROM graph.persons WHERE age >= 70) TO '${source}' (FORMAT parquet)`,
    );
    const matched = await exportRows(
      request('csv', {
        members: { sql: 'SELECT person_key FROM graph.persons WHERE age >= 70' },
        matched: { path: source, includeUnmatched: false },
        renderedRows: counting,
      }),
    );
    expect(asked).toBe(1);
    expect(matched.columns[0]).toBe('row_id');
  });

  it('a file without a dense key run is searched by key; a member it lacks fails the export', async () => {
    // Rendered from the persons under 60 only: keys with gaps, so the file carries its key section.
    const subset = '(SELECT * FROM graph.persons WHERE age < 60)';
    const partial = await buildRenderedRows({
      warehouse: wh,
      releaseFile: path.join(tempDir('rendered-subset'), 'graph-1.0-x.duckdb'),
      fields,
      format: 'csv',
      personsTable: subset,
    });
    const { key } = renderedRowsFileOf(releaseFile, fields, 'csv');
    const reader = openRenderedRows(partial.path, key)!;
    expect(reader.denseFrom).toBeNull();
    reader.close();
    const young = { sql: 'SELECT person_key FROM graph.persons WHERE age BETWEEN 20 AND 40' };
    const engine = await exportRows(request('csv', { members: young }));
    const rendered = await exportRows(request('csv', { members: young, renderedRows: () => partial.path }));
    expect(digests(rendered)).toEqual(digests(engine));
    await expect(exportRows(request('csv', { members: ADULTS, renderedRows: () => partial.path }))).rejects.toThrow(ExportFailedError);
    await expect(exportRows(request('csv', { members: ADULTS, renderedRows: () => partial.path }))).rejects.toThrow(
      /is not a person of the release's rendered rows/,
    );
  });

  it('an empty audience gives the same header-only part; repeated members count once', async () => {
    const none = { sql: 'SELECT person_key FROM graph.persons WHERE FALSE' };
    expect(digests(await exportRows(request('avro', { members: none, renderedRows: lookup })))).toEqual(
      digests(await exportRows(request('avro', { members: none }))),
    );
    const twice = {
      sql: 'SELECT person_key FROM graph.persons WHERE age >= 80 UNION ALL SELECT person_key FROM graph.persons WHERE age >= 70',
    };
    const rendered = await exportRows(request('csv', { members: twice, renderedRows: lookup }));
    expect(digests(rendered)).toEqual(digests(await exportRows(request('csv', { members: twice }))));
  });

  it('are named by exactly what makes their bytes: format family, columns, their SQL and vocabularies', () => {
    const age = catalogFields(['age']).map((f) => fieldColumn(f));
    expect(renderedRowsKey('csv', age)).toBe('csv-e0fbad87f18a5764');
    expect(renderedRowsKey('jsonl', age)).toBe(renderedRowsKey('json', age));
    expect(renderedRowsKey('avro', age)).toMatch(/^avro-[0-9a-f]{16}$/);
    expect(renderedRowsKey('avro', age).slice(5)).not.toBe(renderedRowsKey('csv', age).slice(4));
    expect(
      renderedRowsKey(
        'csv',
        catalogFields(['age', 'gender']).map((f) => fieldColumn(f)),
      ),
    ).not.toBe(renderedRowsKey('csv', age));
  });
});
