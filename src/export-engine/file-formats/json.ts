/**
 * JSON lines (both `json` and `jsonl` deliveries, spec 4.11: newline-delimited, one object per line,
 * never a top-level array). Keys in column order; NULL is null; dates are ISO strings; arrays are
 * JSON arrays. Strings of a closed vocabulary are stringified once per distinct value.
 */
import { ByteBuffer, byteCache } from './bytes.ts';
import { isoDates, type EncoderColumn, type RowEncoder } from './encoder.ts';
import { compileRows, type CellCode } from './rows-codegen.ts';

const NULL = Buffer.from('null');
const TRUE = Buffer.from('true');
const FALSE = Buffer.from('false');
/** Strings JSON.stringify would leave as they are: printable ASCII without quote or backslash. */
const PLAIN = /^[\x20-\x21\x23-\x5b\x5d-\x7e]*$/;

function pieceOf(c: EncoderColumn): CellCode {
  const orNull = (code: string, deps: unknown[]): CellCode => ({
    code: `if (v === null) out.bytes(d[0]); else { ${code} }`,
    deps: [NULL, ...deps],
  });
  switch (c.kind) {
    case 'string':
      if (c.vocabulary) return orNull('out.bytes(d[1](v));', [byteCache<string>((s) => JSON.stringify(s))]);
      if (c.plain) return orNull('out.byte(34); out.text(v); out.byte(34);', []);
      return orNull('if (d[1].test(v)) { out.byte(34); out.text(v); out.byte(34); } else out.text(JSON.stringify(v));', [PLAIN]);
    case 'int':
      return orNull('out.int(v);', []);
    case 'double':
      return orNull('if (Number.isFinite(v)) out.text(String(v)); else out.bytes(d[0]);', []);
    case 'boolean':
      return orNull('out.bytes(v ? d[1] : d[2]);', [TRUE, FALSE]);
    case 'date': {
      const iso = isoDates();
      return orNull('out.bytes(d[1](v));', [byteCache<number>((days) => `"${iso(days)}"`)]);
    }
    case 'array':
      return { code: 'out.bytes(v.json);', deps: [] };
  }
}

export function jsonLinesEncoder(columns: readonly EncoderColumn[], extension: 'json' | 'jsonl'): RowEncoder {
  const keys = columns.map((c, i) => Buffer.from(`${i === 0 ? '{' : ','}${JSON.stringify(c.name)}:`));
  const pieces = columns.map(pieceOf).map((p, i) => ({ code: p.code, deps: [...p.deps, keys[i]] }));
  // Each column's key is its last helper: written before the value.
  const write = compileRows(
    pieces.map((p) => ({ code: `out.bytes(d[${p.deps.length - 1}]); ${p.code}`, deps: p.deps })),
    () => '',
    'out.byte(125); out.byte(10);',
  );
  const out = new ByteBuffer();
  return {
    extension,
    header: () => null,
    encode(values, from, to, ends) {
      write(out, values, from, to, ends);
      return out.take();
    },
  };
}
