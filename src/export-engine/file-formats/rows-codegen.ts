/**
 * Text rows as one generated function per export: a loop over rows with every column's write inlined
 * (its kind known when the export starts). Calling a per-column closure for each cell was a
 * megamorphic call per cell; under tsx's transform those calls cost ~1.6 s of a 1M-row CSV, the
 * generated loop about a third of it. The generated source holds no input: only column positions and
 * constant snippets.
 */
import type { ByteBuffer } from './bytes.ts';

/** A column's write: JS statements over `v` (the value), `out` (ByteBuffer) and `d[i]` (its helpers). */
export interface CellCode {
  code: string;
  /** Helpers the code refers to as `d[i]` (caches, constants), in order. */
  deps: unknown[];
}

/**
 * Writes rows [from, to) into `out`; with `ends`, also each row's end as an offset into `out` (the
 * rendered rows of rendered/build.ts need every row's bytes apart).
 */
export type RowWriter = (out: ByteBuffer, values: readonly unknown[][], from: number, to: number, ends?: Float64Array) => void;

/**
 * `before(i)` and `after` are byte writes around the cells (separators, braces); each cell's code
 * sees its helpers renumbered into one shared `d` array.
 */
export function compileRows(cells: readonly CellCode[], before: (i: number) => string, after: string): RowWriter {
  const deps: unknown[] = [];
  const lines: string[] = ['for (let r = from; r < to; r++) {', 'let v;'];
  cells.forEach((cell, i) => {
    const base = deps.length;
    deps.push(...cell.deps);
    const code = cell.code.replace(/d\[(\d+)\]/g, (_, n: string) => `d[${base + Number(n)}]`);
    lines.push(before(i), `v = values[${i}][r];`, code);
  });
  lines.push(after, 'if (ends !== undefined) ends[r - from] = out.pos;', '}');
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- generated from the column kinds above, no input.
  const body = new Function('d', 'out', 'values', 'from', 'to', 'ends', lines.join('\n')) as (
    d: unknown[],
    out: ByteBuffer,
    values: readonly unknown[][],
    from: number,
    to: number,
    ends: Float64Array | undefined,
  ) => void;
  return (out, values, from, to, ends) => body(deps, out, values, from, to, ends);
}
