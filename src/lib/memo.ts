/**
 * A memo of a pure function of one string, bounded by clearing it when it holds `max` values. Matching
 * normalizes the same few thousand first names, surnames and cities over and over in a file of millions of
 * rows; a file of all-distinct values costs one Map of `max` entries, never more. Callers must not mutate the
 * values it returns (freeze arrays).
 *
 * The values are personal data (names), so memos are off unless a thread turns them on (enableMemos): the file
 * path's staging workers do, and they end with their file; the API process, which normalizes every
 * organization's requests, keeps nothing between calls.
 */
let enabled = false;

/** Turns memoization on (or off) for this thread: on in a staging worker, which lives for one file. */
export function enableMemos(on = true): void {
  enabled = on;
}

export function boundedMemo<T>(fn: (s: string) => T, max = 65_536): (s: string) => T {
  let memo = new Map<string, T>();
  return (s: string) => {
    if (!enabled) return fn(s);
    const hit = memo.get(s);
    if (hit !== undefined || memo.has(s)) return hit as T;
    const value = fn(s);
    if (memo.size >= max) memo = new Map();
    memo.set(s, value);
    return value;
  };
}
