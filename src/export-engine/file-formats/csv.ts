/**
 * CSV (RFC 4180): a header row, then one line per row; `\n` line ends; a cell is quoted only when it
 * holds a comma, a quote or a line break. NULL is an empty cell; booleans are true/false; dates ISO;
 * an array is its items joined by `|` (CSV_ARRAY_SEPARATOR), empty when it has none.
 */
import { csvCell } from '../columns.ts';
import { ByteBuffer, byteCache } from './bytes.ts';
import { isoDates, type EncoderColumn, type RowEncoder } from './encoder.ts';
import { compileRows, type CellCode } from './rows-codegen.ts';

const TRUE = Buffer.from('true');
const FALSE = Buffer.from('false');
const NEEDS_QUOTES = /[",\r\n]/;

function cellOf(c: EncoderColumn): CellCode {
  switch (c.kind) {
    case 'string':
      if (c.vocabulary) return { code: 'if (v !== null) out.bytes(d[0](v));', deps: [byteCache<string>(csvCell)] };
      if (c.plain) return { code: 'if (v !== null) out.text(v);', deps: [] };
      return { code: 'if (v !== null) out.text(d[0].test(v) ? d[1](v) : v);', deps: [NEEDS_QUOTES, csvCell] };
    case 'int':
      return { code: 'if (v !== null) out.int(v);', deps: [] };
    case 'double':
      return { code: 'if (v !== null) out.text(String(v));', deps: [] };
    case 'boolean':
      return { code: 'if (v !== null) out.bytes(v ? d[0] : d[1]);', deps: [TRUE, FALSE] };
    case 'date':
      return { code: 'if (v !== null) out.bytes(d[0](v));', deps: [byteCache<number>(isoDates())] };
    case 'array':
      return { code: 'out.bytes(v.csv);', deps: [] };
  }
}

export function csvEncoder(columns: readonly EncoderColumn[]): RowEncoder {
  const write = compileRows(columns.map(cellOf), (i) => (i > 0 ? 'out.byte(44);' : ''), 'out.byte(10);');
  const header = Buffer.from(`${columns.map((c) => csvCell(c.name)).join(',')}\n`);
  const out = new ByteBuffer();
  return {
    extension: 'csv',
    header: () => header,
    encode(values, from, to, ends) {
      write(out, values, from, to, ends);
      return out.take();
    },
  };
}
