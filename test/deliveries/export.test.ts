import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { exportRows, ExportRequestError, type ExportFormat, type ExportRequest } from '../../src/export-engine/index.ts';
import type { Warehouse } from '../../src/graph/warehouse.ts';
import { graphPersonIdEncoder } from '../../src/identity/person-id.ts';
import { INTERESTS } from '../../src/graph/vocab.ts';
import { catalogFields, exportWarehouse, readAvro, readCsv, readJsonLines, STANDARD_ENRICHMENT, tempDir } from './helpers.ts';

const personIds = { orgId: 'org_export_test', orgClientCode: 'EXP', secret: 'export-test-secret' };
const MEMBERS = `SELECT person_key FROM graph.discovery_persons WHERE age >= $1`;
let wh: Warehouse;
let keys: bigint[];
let truth: Map<bigint, Record<string, unknown>>;

const request = (o: Partial<ExportRequest> & { format: ExportFormat }): ExportRequest => ({
  warehouse: wh,
  members: { sql: MEMBERS, params: [40] },
  fields: catalogFields(STANDARD_ENRICHMENT),
  personIds,
  compression: 'none',
  outputDir: tempDir(o.format),
  ...o,
});

beforeAll(async () => {
  wh = await exportWarehouse();
  const rows = await wh.query<{ person_key: bigint | number }>(`${MEMBERS} ORDER BY person_key`, [40]);
  keys = rows.map((r) => BigInt(r.person_key));
  const persons = await wh.query(`SELECT * FROM graph.persons WHERE age >= 40`);
  truth = new Map(persons.map((p) => [BigInt(p.person_key as number), p]));
}, 120_000);

const sha = (file: string) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');

describe('export engine', () => {
  it('CSV: one row per member in key order, ids equal to the per-row encoder, values as in the warehouse', async () => {
    const result = await exportRows(request({ format: 'csv' }));
    expect(keys.length).toBeGreaterThan(500);
    expect(result.output_record_count).toBe(keys.length);
    expect(result.columns).toEqual(['iag_person_id', ...STANDARD_ENRICHMENT]);
    expect(result.parts).toHaveLength(1);
    expect(result.parts[0]!.name).toBe('part-00000.csv');
    expect(result.output_bytes).toBe(fs.statSync(result.parts[0]!.path).size);
    const rows = readCsv(result.parts[0]!.path);
    const encode = graphPersonIdEncoder(personIds);
    expect(rows.map((r) => r.iag_person_id)).toEqual(keys.map((k) => encode(k)));
    rows.forEach((row, i) => {
      const p = truth.get(keys[i]!)!;
      expect(row.age).toBe(String(p.age));
      expect(row.gender).toBe(p.gender ?? '');
      expect(row.education).toBe(p.education ?? '');
      expect(row.homeowner).toBe(p.homeowner === null ? '' : String(p.homeowner));
      expect(row.moved_in).toBe(p.moved_in ?? '');
      expect(row.home_value).toBe(p.home_value === null ? '' : String(p.home_value));
      const mask = BigInt(p.interests_mask as number);
      expect(row.interests).toBe(INTERESTS.filter((_, b) => (mask >> BigInt(b)) & 1n).join('|'));
    });
  });

  it('JSON lines (json and jsonl) and Avro carry the same rows as CSV, with native types', async () => {
    const csv = readCsv((await exportRows(request({ format: 'csv' }))).parts[0]!.path);
    const json = await exportRows(request({ format: 'json' }));
    const jsonl = await exportRows(request({ format: 'jsonl' }));
    expect(json.parts[0]!.name).toBe('part-00000.json');
    expect(jsonl.parts[0]!.name).toBe('part-00000.jsonl');
    expect(sha(json.parts[0]!.path)).toBe(sha(jsonl.parts[0]!.path));
    const lines = readJsonLines(json.parts[0]!.path);
    expect(lines).toHaveLength(keys.length);
    expect(Object.keys(lines[0]!)).toEqual(['iag_person_id', ...STANDARD_ENRICHMENT]);

    const avro = await exportRows(request({ format: 'avro', compression: 'gzip' }));
    expect(avro.output_compression).toBe('none');
    expect(avro.parts[0]!.name).toBe('part-00000.avro');
    const decoded = await readAvro(avro.parts[0]!.path);
    expect(decoded.codec).toBe('deflate');
    const types = Object.fromEntries((decoded.schema as { fields: { name: string; type: unknown }[] }).fields.map((f) => [f.name, f.type]));
    expect(types).toMatchObject({
      iag_person_id: ['null', 'string'],
      age: ['null', 'int'],
      homeowner: ['null', 'boolean'],
      gender: ['null', 'string'],
      moved_in: ['null', { type: 'int', logicalType: 'date' }],
      interests: { type: 'array', items: 'string' },
    });
    expect(decoded.records).toHaveLength(keys.length);
    decoded.records.forEach((rec, i) => {
      const line = lines[i]!;
      const row = csv[i]!;
      expect(rec.iag_person_id).toBe(row.iag_person_id);
      expect(line.iag_person_id).toBe(row.iag_person_id);
      expect(rec.age).toBe(line.age);
      expect(line.age).toBe(Number(row.age));
      expect(rec.homeowner).toBe(line.homeowner);
      expect(rec.interests).toEqual(line.interests);
      expect((line.interests as string[]).join('|')).toBe(row.interests);
      expect(rec.moved_in === null ? null : new Date((rec.moved_in as number) * 86_400_000).toISOString().slice(0, 10)).toBe(line.moved_in);
    });
  });

  it('gzip parts gunzip to the uncompressed bytes; the same request gives the same bytes in every format', async () => {
    const plain = await exportRows(request({ format: 'csv' }));
    const gz = await exportRows(request({ format: 'csv', compression: 'gzip' }));
    expect(gz.parts[0]!.name).toBe('part-00000.csv.gz');
    expect(gz.output_compression).toBe('gzip');
    expect(zlib.gunzipSync(fs.readFileSync(gz.parts[0]!.path)).equals(fs.readFileSync(plain.parts[0]!.path))).toBe(true);
    for (const format of ['csv', 'json', 'avro'] as const) {
      const compression = format === 'json' ? 'gzip' : 'none';
      const a = await exportRows(request({ format, compression, partRows: 700 }));
      const b = await exportRows(request({ format, compression, partRows: 700 }));
      expect(a.parts.map((p) => p.name)).toEqual(b.parts.map((p) => p.name));
      expect(a.parts.map((p) => sha(p.path))).toEqual(b.parts.map((p) => sha(p.path)));
    }
  });

  it('ids computed on the id worker thread give the same bytes as in-process ids (csv, avro)', async () => {
    for (const format of ['csv', 'avro'] as const) {
      const inProcess = await exportRows(request({ format, idWorker: false, partRows: 700 }));
      const worker = await exportRows(request({ format, idWorker: true, partRows: 700 }));
      expect(worker.output_record_count).toBe(keys.length);
      expect(worker.parts.map((p) => sha(p.path))).toEqual(inProcess.parts.map((p) => sha(p.path)));
    }
    const rows = (await exportRows(request({ format: 'csv', idWorker: true }))).parts.flatMap((p) => readCsv(p.path));
    const encode = graphPersonIdEncoder(personIds);
    expect(rows.map((r) => r.iag_person_id)).toEqual(keys.map((k) => encode(k)));
  });

  it('splits into parts of at most partRows rows, named in order, each a complete file', async () => {
    const result = await exportRows(request({ format: 'csv', partRows: 250 }));
    expect(result.parts.map((p) => p.name)).toEqual(result.parts.map((_, i) => `part-${String(i).padStart(5, '0')}.csv`));
    expect(result.parts.map((p) => p.rows)).toEqual(result.parts.map((_, i) => Math.min(250, keys.length - 250 * i)));
    const all = result.parts.flatMap((p) => readCsv(p.path));
    const encode = graphPersonIdEncoder(personIds);
    expect(all.map((r) => r.iag_person_id)).toEqual(keys.map((k) => encode(k)));
    expect(result.output_bytes).toBe(result.parts.reduce((s, p) => s + fs.statSync(p.path).size, 0));
    const avro = await exportRows(request({ format: 'avro', partRows: 250 }));
    const records = (await Promise.all(avro.parts.map((p) => readAvro(p.path)))).flatMap((d) => d.records);
    expect(records.map((r) => r.iag_person_id)).toEqual(all.map((r) => r.iag_person_id));
  });

  it('exports exactly the fields given: no PII unless asked for, and PII when it is', async () => {
    const plain = readCsv((await exportRows(request({ format: 'csv', fields: catalogFields(['age', 'state']) }))).parts[0]!.path);
    expect(Object.keys(plain[0]!)).toEqual(['iag_person_id', 'age', 'state']);
    const withPii = await exportRows(request({ format: 'jsonl', fields: catalogFields(['first_name', 'dob', 'lat']) }));
    const lines = readJsonLines(withPii.parts[0]!.path);
    expect(Object.keys(lines[0]!)).toEqual(['iag_person_id', 'first_name', 'dob', 'lat']);
    lines.slice(0, 50).forEach((line, i) => {
      const p = truth.get(keys[i]!)!;
      expect(line.first_name).toBe(p.first_name);
      expect(line.dob).toBe(p.dob);
      expect(line.lat).toBe(p.lat);
    });
  });

  it("a value outside a field's vocabulary is still exported as it is", async () => {
    const [gender] = catalogFields(['gender']);
    const result = await exportRows(request({ format: 'csv', fields: [{ ...gender!, enumValues: ['M'] }] }));
    const rows = readCsv(result.parts[0]!.path);
    expect(new Set(rows.map((r) => r.gender))).toEqual(new Set(['M', 'F']));
    rows.forEach((row, i) => expect(row.gender).toBe(truth.get(keys[i]!)!.gender ?? ''));
  });

  it('an empty audience gives one part with only the header', async () => {
    const result = await exportRows(request({ format: 'csv', members: { sql: 'SELECT person_key FROM graph.persons WHERE FALSE' } }));
    expect(result.output_record_count).toBe(0);
    expect(fs.readFileSync(result.parts[0]!.path, 'utf8')).toBe(`iag_person_id,${STANDARD_ENRICHMENT.join(',')}\n`);
  });

  it('a retried export replaces its parts under the same names and clears what an earlier attempt left', async () => {
    const dir = tempDir('retry');
    fs.writeFileSync(path.join(dir, '.part-00000.csv.tmp'), 'half a part');
    fs.writeFileSync(path.join(dir, 'part-00009.csv'), 'a part of an earlier, larger attempt');
    fs.writeFileSync(path.join(dir, 'unrelated.txt'), 'kept');
    const first = await exportRows(request({ format: 'csv', partRows: 400, outputDir: dir }));
    const second = await exportRows(request({ format: 'csv', partRows: 400, outputDir: dir }));
    expect(second.parts.map((p) => sha(p.path))).toEqual(first.parts.map((p) => sha(p.path)));
    expect(fs.readdirSync(dir).sort()).toEqual([...first.parts.map((p) => p.name), 'unrelated.txt'].sort());
  });

  it('refuses invalid requests with a typed error', async () => {
    await expect(exportRows(request({ format: 'csv', partRows: 0 }))).rejects.toBeInstanceOf(ExportRequestError);
    await expect(exportRows(request({ format: 'csv', fields: catalogFields(['age', 'age']) }))).rejects.toThrow(
      'output column "age" appears twice',
    );
    await expect(exportRows(request({ format: 'xml' as ExportFormat }))).rejects.toMatchObject({ code: 'INVALID_EXPORT_REQUEST' });
  });
});
