/**
 * Finds SQL text in TypeScript source (issue #33: the warehouse's questions live behind its door): the
 * string and template literals that read as a statement or a clause of one. Literals tagged `sql`
 * (Kysely's tag, the control plane's PostgreSQL) are not the warehouse's and are left out; so are
 * comments.
 */
const SQL = /\b(SELECT\s|COPY\s*\(|INSERT\s+INTO|CREATE\s+(TEMP\s+)?TABLE|GROUP\s+BY|ORDER\s+BY|read_parquet|read_csv|duckdb_|TABLESAMPLE)/;

/** The SQL-looking literals of a source text, each as its first line. */
export function sqlLiterals(source: string): string[] {
  const out: string[] = [];
  let i = 0;
  const n = source.length;
  while (i < n) {
    const c = source[i]!;
    if (c === '/' && source[i + 1] === '/') {
      i = source.indexOf('\n', i);
      if (i < 0) break;
      continue;
    }
    if (c === '/' && source[i + 1] === '*') {
      i = source.indexOf('*/', i + 2);
      if (i < 0) break;
      i += 2;
      continue;
    }
    if (c === '"' || c === "'" || c === '`') {
      const tagged = c === '`' && /\bsql(<[^>]*>)?\s*$/.test(source.slice(Math.max(0, i - 200), i));
      let j = i + 1;
      let depth = 0;
      while (j < n) {
        const d = source[j]!;
        if (d === '\\') {
          j += 2;
          continue;
        }
        if (c === '`' && d === '$' && source[j + 1] === '{') depth += 1;
        else if (c === '`' && d === '}' && depth > 0) depth -= 1;
        else if (d === c && depth === 0) break;
        j += 1;
      }
      const text = source.slice(i + 1, j);
      if (!tagged && SQL.test(text)) out.push(text.split('\n')[0]!.trim());
      i = j + 1;
      continue;
    }
    i += 1;
  }
  return out;
}
