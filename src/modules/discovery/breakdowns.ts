/**
 * group_by and the default breakdowns.
 *
 * Default breakdowns (when group_by is absent and the input is raw filters, one filter segment or an
 * audience) are what planners ask first: gender, age band, household income band, and state (top
 * 10 plus `other`). They come from ONE integer GROUP BY over the discovery table's `breakdown_key`,
 * decoded into per-dimension buckets by the release's `breakdown_codes` in the same statement (so a
 * release switch between two reads cannot mix codes; see graph/discovery-table.ts). A group_by is a
 * GROUPING SETS ((), (d)) scan: the empty set yields the total on the same pass. Every bucket below
 * the privacy floor is suppressed, and every shown one noised on its own, by the privacy layer.
 */
import { BREAKDOWN_DIMENSIONS } from '../../graph/discovery-table.ts';
import { quoteIdent } from '../../graph/filters/text.ts';
import type { Bucket, Privacy, ProtectedBuckets, Question } from '../privacy/index.ts';

export interface Dimension {
  /** Name shown in the response. */
  name: string;
  /** SQL over the persons alias `p`. */
  expr: string;
  /** Columns of the scanned table read. */
  columns: string[];
  /** Show only the largest N buckets plus `other`. */
  top?: number;
}

export const DEFAULT_BREAKDOWNS: readonly Dimension[] = BREAKDOWN_DIMENSIONS.map((d) => ({
  name: d.name, expr: d.expr('p.'), columns: ['breakdown_key'], ...(d.name === 'state' ? { top: 10 } : {}),
}));

/** Most buckets a group_by answer lists; the rest are reported in `truncated_groups`. */
export const MAX_GROUPS = 1000;

export interface GroupedCounts {
  total: number;
  matched: number | null;
  /** Raw buckets per dimension name, before suppression. */
  buckets: Map<string, Bucket[]>;
}

/**
 * SQL for total (+ matched) and every dimension's buckets in one pass. Result columns: `g0..gk`
 * (GROUPING flags: 0 when the row groups by that dimension), `d0..dk` (values), `n`, `m`.
 */
export function groupedCountSql(dims: readonly Dimension[], from: string, where: string, matchedWhere: string | null): string {
  const inner = [
    ...dims.map((d, i) => `${d.expr} AS d${i}`),
    ...(matchedWhere ? [`${matchedWhere} AS mm`] : []),
  ];
  const sets = ['()', ...dims.map((_, i) => `(d${i})`)].join(', ');
  const outer = [
    ...dims.map((_, i) => `GROUPING(d${i}) AS g${i}`),
    ...dims.map((_, i) => `d${i}`),
    'count(*) AS n',
    matchedWhere ? 'count(*) FILTER (WHERE mm) AS m' : 'NULL AS m',
  ];
  return `SELECT ${outer.join(', ')} FROM (SELECT ${inner.join(', ') || '1 AS one'} FROM ${from} p WHERE ${where}) t GROUP BY GROUPING SETS (${sets})`;
}

function plain(v: unknown): string | number | boolean | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v;
  return String(v);
}

export function readGroupedCounts(dims: readonly Dimension[], rows: Record<string, unknown>[]): GroupedCounts {
  const out: GroupedCounts = { total: 0, matched: null, buckets: new Map(dims.map((d) => [d.name, []])) };
  for (const row of rows) {
    const flags = dims.map((_, i) => Number(row[`g${i}`]));
    const n = Number(row.n);
    const at = flags.indexOf(0);
    if (at < 0) {
      out.total = n;
      out.matched = row.m === null || row.m === undefined ? null : Number(row.m);
    } else {
      out.buckets.get(dims[at]!.name)!.push({ group_value: plain(row[`d${at}`]), count: n });
    }
  }
  return out;
}

/**
 * Total (+ matched) and the default breakdowns in one statement. Result rows: `dimension` NULL for the
 * total, else one row per (dimension, value) present; columns `n`, `m`.
 */
export function breakdownCountSql(from: string, codesTable: string, where: string, matchedWhere: string | null): string {
  const m = matchedWhere ? `count(*) FILTER (WHERE ${matchedWhere})` : 'NULL::BIGINT';
  return `WITH b AS (SELECT p.breakdown_key AS k, count(*) AS n, ${m} AS m FROM ${from} p WHERE ${where} GROUP BY p.breakdown_key)
    SELECT NULL::VARCHAR AS dimension, NULL::VARCHAR AS value, coalesce(sum(n), 0) AS n, sum(m) AS m FROM b
    UNION ALL
    SELECT c.dimension, c.value, sum(b.n) AS n, sum(b.m) AS m
    FROM b JOIN ${codesTable} c ON (b.k // c.stride) % c.radix = c.code GROUP BY c.dimension, c.value`;
}

export function readBreakdownCounts(dims: readonly Dimension[], rows: Record<string, unknown>[], withMatched: boolean): GroupedCounts {
  const out: GroupedCounts = { total: 0, matched: null, buckets: new Map(dims.map((d) => [d.name, []])) };
  for (const row of rows) {
    const n = Number(row.n);
    if (row.dimension === null || row.dimension === undefined) {
      out.total = n;
      out.matched = withMatched ? Number(row.m ?? 0) : null;
    } else {
      out.buckets.get(String(row.dimension))?.push({ group_value: plain(row.value), count: n });
    }
  }
  return out;
}

/** One dimension's buckets as shown: through the privacy layer, then at most MAX_GROUPS of them. */
export function protectDimension(privacy: Privacy, question: Question, dim: Dimension, buckets: Bucket[]): ProtectedBuckets & { truncated_groups?: number } {
  const kept = privacy.protectGroups({ question, dimension: dim.name, buckets, ...(dim.top !== undefined ? { top: dim.top } : {}) });
  if (dim.top !== undefined) return kept;
  if (kept.groups.length > MAX_GROUPS) {
    const truncated = kept.groups.length - MAX_GROUPS;
    kept.groups = kept.groups.slice(0, MAX_GROUPS);
    return { ...kept, truncated_groups: truncated };
  }
  return kept;
}

/** A group_by dimension for a plain catalog column. */
export function columnDimension(name: string, column: string): Dimension {
  return { name, expr: `p.${quoteIdent(column)}`, columns: [column] };
}
