/**
 * The masked sample of a lookup (spec 4.2): the total of a selection and at most `limit` rows of its
 * eligible part, each showing its fields generalized by a rule the caller gives as data (the privacy
 * layer's, src/modules/privacy/lookup.ts), and each combination of shown values shared by at least `k`
 * eligible persons. One statement.
 */
import type { CatalogField } from '../field-types.ts';
import { quoteIdent } from '../filters/text.ts';
import { DUCKDB } from '../dialect.ts';

/** How one field's value is shown: exact, in bands of `width`, as its first `keep` characters then `pad`, or as its year. */
export type Generalization =
  { kind: 'exact' } | { kind: 'band'; width: number } | { kind: 'prefix'; keep: number; pad: string } | { kind: 'year' };

export interface MaskedSampleQuestion {
  personsTable: string;
  /** Predicate of the whole selection (its total). */
  totalWhere: string;
  /** Predicate of the eligible parts (rows come only from here); `FALSE` when none is. */
  eligibleWhere: string;
  fields: readonly { field: CatalogField; shown: Generalization }[];
  limit: number;
  k: number;
}

/** The SQL of one shown value. */
function shownExpr(field: CatalogField, g: Generalization): string {
  const x = `p.${quoteIdent(field.storage.column)}`;
  switch (g.kind) {
    case 'band': {
      const w = Math.trunc(g.width);
      const lo = `(${x} // ${w} * ${w})`;
      return `CASE WHEN ${x} IS NULL THEN NULL ELSE ${lo}::VARCHAR || '-' || (${lo} + ${w - 1})::VARCHAR END`;
    }
    case 'prefix':
      return `CASE WHEN ${x} IS NULL THEN NULL ELSE left(${x}, ${Math.trunc(g.keep)}) || '${g.pad.replace(/'/g, "''")}' END`;
    case 'year':
      return `year(${x})::VARCHAR`;
    default:
      return x;
  }
}

/**
 * `__total`, then `c0..cn` and `__row` (NULL on the one row of an empty sample) of at most `limit` rows
 * in a stable pseudo-random order (by the hash of the person key).
 */
export function maskedSampleSql(o: MaskedSampleQuestion): string {
  const cols = o.fields.map((f, i) => `${shownExpr(f.field, f.shown)} AS c${i}`);
  const names = o.fields.map((_, i) => `c${i}`);
  return `WITH t AS (SELECT count(*) AS n FROM ${o.personsTable} p WHERE ${o.totalWhere}),
    g AS (SELECT ${[...cols, `${DUCKDB.personHash()} AS __h`, 'p.person_key AS __key'].join(', ')} FROM ${o.personsTable} p WHERE ${o.eligibleWhere}),
    w AS (SELECT *, count(*) OVER (PARTITION BY ${names.join(', ')}) AS __k FROM g),
    s AS (SELECT ${names.join(', ')}, TRUE AS __row FROM w WHERE __k >= ${Math.trunc(o.k)} ORDER BY __h, __key LIMIT ${Math.trunc(o.limit)})
    SELECT t.n AS __total, s.* FROM t LEFT JOIN s ON TRUE`;
}
