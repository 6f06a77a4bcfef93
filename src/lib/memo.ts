/**
 * A memo of a pure function of one string, bounded by clearing it when it holds `max` values. Matching
 * normalizes the same few thousand first names, surnames and cities over and over in a file of millions of
 * rows; a file of all-distinct values costs one Map of `max` entries, never more. Callers must not mutate the
 * values it returns (freeze arrays).
 */
export function boundedMemo<T>(fn: (s: string) => T, max = 65_536): (s: string) => T {
  let memo = new Map<string, T>();
  return (s: string) => {
    const hit = memo.get(s);
    if (hit !== undefined || memo.has(s)) return hit as T;
    const value = fn(s);
    if (memo.size >= max) memo = new Map();
    memo.set(s, value);
    return value;
  };
}
