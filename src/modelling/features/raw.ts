/**
 * The training sample as it leaves the warehouse: one row per sampled person (ordered by person key,
 * so the arrays are the same on every run), the part it belongs to (0 train, 1 validation), its label,
 * and one raw column per feature source. Values are exactly the DOUBLEs / strings / booleans the
 * scoring SQL later compares, so a split learnt here means the same thing there.
 */
import type { ModelWarehouse } from '../types.ts';
import { sourceColumnsSql, type FeatureSource } from './sources.ts';

export type RawColumn =
  | { kind: 'numeric'; values: Float64Array }
  /** -1 NULL, 0 false, 1 true. */
  | { kind: 'boolean'; values: Int8Array }
  | { kind: 'category'; values: (string | null)[] }
  /** The mask's low and high 32 bits as exact doubles. */
  | { kind: 'bitmask'; lo: Float64Array; hi: Float64Array };

export interface RawSample {
  n: number;
  part: Uint8Array;
  y: Uint8Array;
  columns: Map<string, RawColumn>;
}

/** SELECT list of the pull: part, y, then each source's columns (sources.ts `sourceColumnsSql`). */
export function rawSelectList(sources: readonly FeatureSource[], alias: string): string {
  return sources.flatMap((s) => sourceColumnsSql(s, alias)).join(', ');
}

/**
 * Streams `sql` (columns: part, y, then rawSelectList's) into a RawSample without holding DuckDB's
 * row objects: each chunk's column vectors are copied into plain arrays.
 */
export async function pullRawSample(wh: ModelWarehouse, sql: string, sources: readonly FeatureSource[]): Promise<RawSample> {
  const part: number[] = [];
  const y: number[] = [];
  const cols: unknown[][] = sources.flatMap((s) => (s.kind === 'bitmask' ? [[], []] : [[]]));
  await wh.stream(sql, (columns, rowCount) => {
    for (let r = 0; r < rowCount; r++) {
      part.push(Number(columns[0]![r]));
      y.push(columns[1]![r] ? 1 : 0);
    }
    for (let c = 0; c < cols.length; c++) {
      const src = columns[c + 2]!;
      const dst = cols[c]!;
      for (let r = 0; r < rowCount; r++) dst.push(src[r]);
    }
  });
  const columns = new Map<string, RawColumn>();
  let c = 0;
  for (const s of sources) {
    const v = cols[c++]!;
    if (s.kind === 'numeric')
      columns.set(s.field, { kind: 'numeric', values: Float64Array.from(v, (x) => (x === null || x === undefined ? NaN : Number(x))) });
    else if (s.kind === 'boolean')
      columns.set(s.field, { kind: 'boolean', values: Int8Array.from(v, (x) => (x === null || x === undefined ? -1 : x ? 1 : 0)) });
    else if (s.kind === 'category')
      columns.set(s.field, { kind: 'category', values: v.map((x) => (x === null || x === undefined ? null : String(x))) });
    else {
      const hi = cols[c++]!;
      columns.set(s.field, {
        kind: 'bitmask',
        lo: Float64Array.from(v, (x) => Number(x ?? 0)),
        hi: Float64Array.from(hi, (x) => Number(x ?? 0)),
      });
    }
  }
  return { n: part.length, part: Uint8Array.from(part), y: Uint8Array.from(y), columns };
}
