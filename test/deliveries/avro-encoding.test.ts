/**
 * The Avro row writer (formats/avro.ts) writes records without avsc; these records must be exactly
 * avsc's encoding of the same values under the export schema, including nulls, non-ASCII strings,
 * negative and large ints, doubles, dates and empty arrays.
 */
import avro from 'avsc';
import { describe, expect, it } from 'vitest';
import type { ArrayValue } from '../../src/export-engine/columns.ts';
import { avroEncoder, avroSchema } from '../../src/export-engine/file-formats/avro.ts';
import type { EncoderColumn } from '../../src/export-engine/file-formats/encoder.ts';

const array = (items: string[]): ArrayValue => ({ items, csv: Buffer.from(items.join('|')), json: Buffer.from(JSON.stringify(items)) });

const columns: EncoderColumn[] = [
  { name: 'iag_person_id', kind: 'string', plain: true },
  { name: 'city', kind: 'string' },
  { name: 'education', kind: 'string', vocabulary: ['high_school', 'bachelors'] },
  { name: 'age', kind: 'int' },
  { name: 'lat', kind: 'double' },
  { name: 'homeowner', kind: 'boolean' },
  { name: 'moved_in', kind: 'date' },
  { name: 'interests', kind: 'array' },
];
const rows: unknown[][] = [
  ['BENCH_01_MOCYLNBC6HZE2ISF42Z3TSRRY4', 'ROCHESTER', 'high_school', 54, 43.12367, true, 18347, array(['beauty', 'books'])],
  [null, 'São Paulo — ✓', null, -1, -0.5, false, -3, array([])],
  ['X', '', 'doctorate', 2_147_483_647, 1e300, null, null, array(['a'.repeat(200)])],
  ['Y', null, 'bachelors', -2_147_483_648, null, true, 0, array(['x', 'y', 'z'])],
  ['Z', 'a'.repeat(300), 'bachelors', 63, 0, true, 64, array([])],
];

describe('Avro row writer', () => {
  it('writes the same record bytes as avsc for every kind, null and edge value', () => {
    const type = avro.Type.forSchema(avroSchema(columns));
    const values = columns.map((_, c) => rows.map((r) => r[c]));
    const written = avroEncoder(columns).encode(values, 0, rows.length);
    const expected = Buffer.concat(
      rows.map((r) =>
        type.toBuffer(Object.fromEntries(columns.map((col, c) => [col.name, col.kind === 'array' ? (r[c] as ArrayValue).items : r[c]]))),
      ),
    );
    expect(written.toString('hex')).toBe(expected.toString('hex'));
    // A slice of rows is those rows only.
    expect(avroEncoder(columns).encode(values, 1, 3).toString('hex')).toBe(
      Buffer.concat(
        rows
          .slice(1, 3)
          .map((r) =>
            type.toBuffer(
              Object.fromEntries(columns.map((col, c) => [col.name, col.kind === 'array' ? (r[c] as ArrayValue).items : r[c]])),
            ),
          ),
      ).toString('hex'),
    );
  });
});
