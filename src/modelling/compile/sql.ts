/**
 * A trained model as one DuckDB expression over a persons row (alias `p`): the margin (log-odds).
 * - Logistic regression: one linear expression. Standardization is folded into the coefficients;
 *   a category's values become one `CASE col WHEN 'v' THEN w ... ELSE 0 END`, a bitmask's bits
 *   integer arithmetic `((col >> bit) & 1) * w`.
 * - Boosted trees: the base log-odds plus one nested CASE per tree. A numeric split is
 *   `CASE WHEN x > t THEN right ELSE left END` (NULL fails the test and goes left, as in training);
 *   an indicator split is `CASE WHEN <indicator> THEN right ELSE left END`. A split compares the
 *   column as stored (`age > 45`, `moved_in > DATE '2011-03-02'`): thresholds are sample values, so
 *   an INTEGER's is whole and a DATE's is whole days, and the comparison means exactly what the
 *   trainer's DOUBLE comparison meant, without a cast per row and per node (10% of scoring time).
 * Numbers are written in exponent form (`3.45e+1`), which DuckDB reads as the very same DOUBLE.
 */
import type { Feature } from '../features/derive.ts';
import { ident, numericSql, sqlString } from '../features/sources.ts';
import type { BoostedModel } from '../train/gbdt.ts';
import type { LogisticModel } from '../train/logistic.ts';
import type { TreeNode } from '../train/tree.ts';

export type TrainedModel = LogisticModel | BoostedModel;

export function num(x: number): string {
  if (!Number.isFinite(x)) throw new Error(`cannot write ${x} into SQL`);
  return x === 0 ? '0.0' : x.toExponential();
}

const col = (f: { column: string }, alias: string) => `${alias}.${ident(f.column)}`;

/** The indicator's test as a boolean expression; NULL counts as false (CASE WHEN sends it to ELSE). */
export function indicatorSql(f: Feature, alias: string): string {
  switch (f.kind) {
    case 'missing':
      return `${col(f, alias)} IS NULL`;
    case 'equals':
      return typeof f.value === 'boolean' ? `${col(f, alias)} = ${f.value ? 'true' : 'false'}` : `${col(f, alias)} = ${sqlString(f.value)}`;
    case 'bit':
      return `(${col(f, alias)} & ${(1n << BigInt(f.bit)).toString()}) <> 0`;
    case 'numeric':
      throw new Error(`${f.name} is numeric, not an indicator`);
  }
}

export function logisticMarginSql(model: LogisticModel, features: readonly Feature[], alias = 'p'): string {
  let constant = model.intercept;
  const terms: string[] = [];
  const categories = new Map<string, string[]>();
  features.forEach((f, j) => {
    const b = model.coefficients[j]!;
    if (b === 0) return;
    if (f.kind === 'numeric') {
      const a = b / f.sd;
      constant -= a * f.mean;
      // Not coalesce(least(greatest(x, lo), hi), mean): DuckDB's greatest/least skip NULLs, so a
      // NULL would score as `lo` instead of the mean the trainer put there.
      const x = numericSql(f, alias);
      terms.push(`${num(a)} * CASE WHEN ${x} IS NULL THEN ${num(f.mean)} ELSE least(greatest(${x}, ${num(f.lo)}), ${num(f.hi)}) END`);
    } else if (f.kind === 'equals' && typeof f.value === 'string') {
      const list = categories.get(f.column) ?? [];
      list.push(`WHEN ${sqlString(f.value)} THEN ${num(b)}`);
      categories.set(f.column, list);
    } else if (f.kind === 'bit') {
      terms.push(`((coalesce(${col(f, alias)}, 0) >> ${f.bit}) & 1) * ${num(b)}`);
    } else {
      terms.push(`CASE WHEN ${indicatorSql(f, alias)} THEN ${num(b)} ELSE 0.0 END`);
    }
  });
  for (const [column, whens] of categories) terms.push(`CASE ${alias}.${ident(column)} ${whens.join(' ')} ELSE 0.0 END`);
  return [num(constant), ...terms].join('\n + ');
}

function treeSql(nodes: readonly TreeNode[], features: readonly Feature[], alias: string, at = 0): string {
  const n = nodes[at]!;
  if ('v' in n) return num(n.v);
  const f = features[n.f]!;
  const left = treeSql(nodes, features, alias, n.l);
  const right = treeSql(nodes, features, alias, n.r);
  if (f.kind === 'numeric') {
    return n.t === null
      ? `CASE WHEN ${col(f, alias)} IS NULL THEN ${left} ELSE ${right} END`
      : `CASE WHEN ${splitTestSql(f, n.t, alias)} THEN ${right} ELSE ${left} END`;
  }
  return `CASE WHEN ${indicatorSql(f, alias)} THEN ${right} ELSE ${left} END`;
}

/** `x > t` on the column as stored; the trainer's DOUBLE form when t is not whole (never for INTEGER / DATE). */
export function splitTestSql(f: Extract<Feature, { kind: 'numeric' }>, t: number, alias: string): string {
  if (f.type === 'NUMBER' || !Number.isSafeInteger(t)) return `${numericSql(f, alias)} > ${num(t)}`;
  if (f.type === 'DATE') return `${col(f, alias)} > DATE '${new Date(t * 86_400_000).toISOString().slice(0, 10)}'`;
  return `${col(f, alias)} > ${t}`;
}

export function boostedMarginSql(model: BoostedModel, features: readonly Feature[], alias = 'p'): string {
  return [num(model.base), ...model.trees.map((t) => treeSql(t, features, alias))].join('\n + ');
}

export function marginSql(model: TrainedModel, features: readonly Feature[], alias = 'p'): string {
  return model.kind === 'logistic' ? logisticMarginSql(model, features, alias) : boostedMarginSql(model, features, alias);
}

/** The probability from a margin expression. */
export function probabilitySql(margin: string): string {
  // Clamped so exp() never overflows whatever a margin reaches.
  return `1.0 / (1.0 + exp(-greatest(-700.0, least(700.0, ${margin}))))`;
}
