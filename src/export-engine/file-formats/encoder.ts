/**
 * Row encoders turn chunks of canonical column values (columns.ts) into bytes of one output format.
 * Text formats give text the part writer may gzip; Avro gives uncompressed blocks it deflates and frames.
 */
import type { ValueKind } from '../columns.ts';

export interface EncoderColumn {
  name: string;
  kind: ValueKind;
  /** Set when the column's strings come from a closed vocabulary (their encoded text is cached). */
  vocabulary?: readonly string[];
  /** Set when every value is ASCII without quotes, commas, backslashes or line breaks (ids). */
  plain?: boolean;
}

export interface RowEncoder {
  /** File extension of a part (without compression suffix). */
  extension: string;
  /** Bytes at the start of every part (CSV header row, Avro container header), or null. */
  header(): Buffer | null;
  /**
   * Rows [from, to) of a chunk whose values are `values[column][row]`; with `ends`, row i's end offset
   * in the returned bytes goes to ends[i - from].
   */
  encode(values: readonly unknown[][], from: number, to: number, ends?: Float64Array): Buffer;
}

/** ISO dates of day numbers (days since 1970-01-01), cached: a column repeats a few thousand days. */
export function isoDates(): (days: number) => string {
  const cache = new Map<number, string>();
  return (days) => {
    let iso = cache.get(days);
    if (iso === undefined) {
      iso = new Date(days * 86_400_000).toISOString().slice(0, 10);
      cache.set(days, iso);
    }
    return iso;
  };
}
