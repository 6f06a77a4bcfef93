/**
 * String similarity shared by normalization (a misspelled city, address/city-zips.ts) and the matcher's
 * comparators (matcher/compare.ts, whose SQL twins use DuckDB's jaro_winkler_similarity).
 */

/** Jaro-Winkler as DuckDB computes it (prefix scale 0.1, up to 4 chars, boost above 0.7). */
export function jaroWinkler(a: string, b: string): number {
  if (a === b) return 1;
  const la = a.length;
  const lb = b.length;
  if (la === 0 || lb === 0) return 0;
  const window = Math.max(0, Math.floor(Math.max(la, lb) / 2) - 1);
  const ma = new Array<boolean>(la).fill(false);
  const mb = new Array<boolean>(lb).fill(false);
  let matches = 0;
  for (let i = 0; i < la; i++) {
    const lo = Math.max(0, i - window);
    const hi = Math.min(lb - 1, i + window);
    for (let j = lo; j <= hi; j++) {
      if (mb[j] || a[i] !== b[j]) continue;
      ma[i] = mb[j] = true;
      matches++;
      break;
    }
  }
  if (matches === 0) return 0;
  let t = 0;
  for (let i = 0, j = 0; i < la; i++) {
    if (!ma[i]) continue;
    while (!mb[j]) j++;
    if (a[i] !== b[j]) t++;
    j++;
  }
  // Half the transpositions, rounded down: DuckDB (rapidfuzz) halves the count in integer arithmetic,
  // e.g. DUCAN/DUNCAN is 0.902 there (fuzzy) and would be 0.876 with t / 2.
  const jaro = (matches / la + matches / lb + (matches - Math.floor(t / 2)) / matches) / 3;
  if (jaro <= 0.7) return jaro;
  let prefix = 0;
  while (prefix < Math.min(4, la, lb) && a[prefix] === b[prefix]) prefix++;
  return jaro + prefix * 0.1 * (1 - jaro);
}
