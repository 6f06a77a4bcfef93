/**
 * Avro object container files (Avro 1.11 spec), written with avsc: the schema keeps native types -
 * strings, int, double, boolean, date (int, logicalType date), arrays of strings - every scalar a
 * nullable union ["null", T]; arrays are never null (an empty array when there are no values).
 * Blocks are deflate-compressed (codec `deflate`, raw DEFLATE as the spec says); the delivery reports
 * compression `none`. The sync marker is derived from the schema, so the same rows give the same bytes.
 *
 * avsc gives the schema and the container header. Records are not encoded through avsc: its
 * `type.encode` needs one JS object per record (filled field by field) and walks the union branches
 * per value, which made Avro the slowest format (~12 us a row with standard_enrichment). Records are
 * written by a generated row loop (rows-codegen.ts, as CSV and JSON are) straight from the column
 * values: a union is its branch index (0 null, 1 value) then the value; strings of a vocabulary and
 * arrays (one object per distinct bitmask) come from per-value byte caches. Avro's binary encoding is
 * canonical, so the bytes are exactly avsc's (the tests decode the parts with avsc).
 */
import { createHash } from 'node:crypto';
import avro from 'avsc';
import { ExportRequestError } from '../errors.ts';
import type { ArrayValue, ValueKind } from '../columns.ts';
import { ByteBuffer, byteCache } from './bytes.ts';
import type { EncoderColumn, RowEncoder } from './encoder.ts';
import { compileRows, type CellCode } from './rows-codegen.ts';

const AVRO_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const MAGIC = Buffer.from([0x4f, 0x62, 0x6a, 0x01]);
const LONG = avro.Type.forSchema('long');
const METADATA = avro.Type.forSchema({ type: 'map', values: 'bytes' });

function fieldType(kind: ValueKind): avro.Schema {
  switch (kind) {
    case 'string':
      return ['null', 'string'];
    case 'int':
      return ['null', 'int'];
    case 'double':
      return ['null', 'double'];
    case 'boolean':
      return ['null', 'boolean'];
    case 'date':
      return ['null', { type: 'int', logicalType: 'date' }];
    case 'array':
      return { type: 'array', items: 'string' };
  }
}

/** A value of an array<string>: block count, items, end of blocks (avsc writes no block when it is empty). */
function arrayBytes(items: readonly string[]): Buffer {
  const out = new ByteBuffer(64);
  if (items.length > 0) {
    out.zigzag(items.length);
    for (const item of items) out.avroString(item);
  }
  out.zigzag(0);
  return out.take();
}

/** A vocabulary string as a non-null union value: branch 1, then the string. */
function unionString(s: string): Buffer {
  const out = new ByteBuffer(64);
  out.byte(2);
  out.avroString(s);
  return out.take();
}

/** Each kind's write of `v`; scalars are the union ["null", T]: 0 for null, else 2 (zigzag of branch 1) and the value. */
function avroCell(c: EncoderColumn): CellCode {
  const orNull = (code: string, deps: unknown[] = []): CellCode => ({
    code: `if (v === null) out.byte(0); else { out.byte(2); ${code} }`,
    deps,
  });
  switch (c.kind) {
    case 'string':
      if (c.vocabulary) return { code: 'if (v === null) out.byte(0); else out.bytes(d[0](v));', deps: [byteCache<string>(unionString)] };
      return orNull('out.avroString(v);');
    case 'int':
    case 'date':
      return orNull('out.zigzag(v);');
    case 'double':
      return orNull('out.double(v);');
    case 'boolean':
      return orNull('out.byte(v ? 1 : 0);');
    case 'array': {
      // ArrayValues are shared per distinct mask, so their bytes are cached by identity.
      const cache = new Map<ArrayValue, Buffer>();
      const bytesOf = (v: ArrayValue) => {
        let b = cache.get(v);
        if (b === undefined) {
          b = arrayBytes(v.items);
          if (cache.size < 65_536) cache.set(v, b);
        }
        return b;
      };
      return { code: 'out.bytes(d[0](v));', deps: [bytesOf] };
    }
  }
}

export function avroSchema(columns: readonly EncoderColumn[]): avro.Schema {
  for (const c of columns) {
    if (!AVRO_NAME.test(c.name)) throw new ExportRequestError(`column name "${c.name}" is not a valid Avro field name`);
  }
  return {
    type: 'record',
    name: 'ExportRow',
    namespace: 'audience.export',
    fields: columns.map((c) => ({ name: c.name, type: fieldType(c.kind), default: c.kind === 'array' ? [] : null })),
  };
}

export interface AvroEncoder extends RowEncoder {
  /** The framed bytes of one block: record count, size, the deflated records and the sync marker. */
  frame(rows: number, deflated: Buffer): Buffer;
}

export function avroEncoder(columns: readonly EncoderColumn[]): AvroEncoder {
  const schema = avroSchema(columns);
  // avsc checks the schema (names, types); records are written below.
  avro.Type.forSchema(schema);
  const schemaJson = JSON.stringify(schema);
  const sync = createHash('sha256').update(`audience-export-sync|${schemaJson}`).digest().subarray(0, 16);
  const header = Buffer.concat([
    MAGIC,
    METADATA.toBuffer({ 'avro.schema': Buffer.from(schemaJson), 'avro.codec': Buffer.from('deflate') }),
    sync,
  ]);
  const write = compileRows(columns.map(avroCell), () => '', '');
  const out = new ByteBuffer();

  return {
    extension: 'avro',
    header: () => header,
    encode(values, from, to, ends) {
      write(out, values, from, to, ends);
      return out.take();
    },
    frame(rows, deflated) {
      return Buffer.concat([LONG.toBuffer(rows), LONG.toBuffer(deflated.length), deflated, sync]);
    },
  };
}
