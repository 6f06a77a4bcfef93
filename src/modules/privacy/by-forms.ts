/**
 * Measuring any question by its forms (compositions of segments, capped segments, questions of many
 * conditions): one UNION ALL scan counts the question and each form (the question without one item), per
 * bucket; each distinct set of two or more items removed at once in some bucket is counted in one more
 * statement.
 */
import { setStatsSql, type SetForm } from '../../graph/index.ts';
import type { MembershipQuery } from '../../graph/index.ts';
import { withoutItems, type Item } from './forms.ts';
import { bucketOfRow, hex, NOBODY, xorHex, type BucketStats, type FormStat, type MeasureOptions, type Run } from './set-stats.ts';

/** Most forms counted in one scan; a question with more items is measured in several. */
export const MAX_FORMS_PER_SCAN = 24;

interface Row {
  dimension: string | null;
  value: BucketStats['value'];
  forms: (FormStat & { e: number })[];
}

export interface FormsScan {
  run: Run;
  o: MeasureOptions;
  /** Counts the statements run. */
  count: () => void;
}

async function formStats(s: FormsScan, forms: readonly SetForm[]): Promise<Map<string, Row>> {
  const matched = s.o.matched === true;
  const sql = setStatsSql(forms, {
    catalog: s.o.catalog,
    personsTable: s.o.personsTable,
    matched,
    dimColumn: s.o.dim?.column,
    breakdown: s.o.breakdown,
  });
  s.count();
  const rows = await s.run(sql.sql, sql.params);
  const empty = () => ({ ...NOBODY, e: 0, m: matched ? { ...NOBODY } : null });
  const out = new Map<string, Row>([['', { dimension: null, value: null, forms: forms.map(empty) }]]);
  for (const row of rows) {
    const { key, dimension, value } = bucketOfRow(row, s.o);
    if (!out.has(key)) out.set(key, { dimension, value, forms: forms.map(empty) });
    out.get(key)!.forms[Number(row.__form)] = {
      n: Number(row.n ?? 0),
      h: hex(row.h),
      e: Number(row.e ?? 0),
      m: matched ? { n: Number(row.m ?? 0), h: hex(row.mh) } : null,
    };
  }
  return out;
}

/** Form 0 and every item's form, in scans of at most MAX_FORMS_PER_SCAN forms (form 0 in each). */
export async function statsByForms(
  s: FormsScan,
  forms: readonly SetForm[],
): Promise<{ buckets: Map<string, BucketStats>; formOf: (k: string, i: number) => FormStat }> {
  const rows = new Map<string, Row>();
  const items = forms.length - 1;
  for (let at = 0; at === 0 || at < items; at += MAX_FORMS_PER_SCAN) {
    const part = await formStats(s, [forms[0]!, ...forms.slice(1 + at, 1 + at + MAX_FORMS_PER_SCAN)]);
    for (const [k, r] of part) {
      // A bucket seen only in a later chunk: nobody in the forms of earlier chunks.
      if (!rows.has(k)) rows.set(k, { ...r, forms: [r.forms[0]!, ...Array.from({ length: at }, () => ({ ...NOBODY, e: 0, m: null }))] });
      rows.get(k)!.forms.push(...r.forms.slice(1));
    }
    for (const [k, r] of rows)
      if (!part.has(k))
        r.forms.push(...Array.from({ length: Math.min(MAX_FORMS_PER_SCAN, items - at) }, () => ({ ...NOBODY, e: 0, m: null })));
  }
  const buckets = new Map<string, BucketStats>();
  for (const [k, r] of rows) {
    const [q, ...fs] = r.forms;
    buckets.set(k, {
      dimension: r.dimension,
      value: r.value,
      q: q!,
      effects: fs.map((f, i) => ({ n: forms[1 + i]!.symmetric ? f.e : Math.abs(f.n - q!.n), h: xorHex(q!.h, f.h) })),
    });
  }
  return { buckets, formOf: (k, i) => rows.get(k)!.forms[1 + i]! };
}

/** A removal pattern to count: its items (indices, comma-joined) and whether its change is not monotone. */
export interface Pattern {
  key: string;
  symmetric: boolean;
}

/**
 * The sets of the question without several items at once, one UNION ALL term per distinct pattern; a
 * symmetric pattern also counts `e`, the persons in exactly one of it and the question (then the
 * question is counted too, as form 0).
 */
export async function patternSets(
  s: FormsScan,
  query: MembershipQuery,
  items: readonly Item[],
  patterns: readonly Pattern[],
): Promise<(k: string, key: string) => (FormStat & { e: number }) | undefined> {
  const found = new Map<string, { rows: Map<string, Row>; at: number }>();
  for (let at = 0; at < patterns.length; at += MAX_FORMS_PER_SCAN) {
    const chunk = patterns.slice(at, at + MAX_FORMS_PER_SCAN);
    const base = chunk.some((p) => p.symmetric) ? [{ query }] : [];
    const forms = chunk.map((p) => ({
      query: withoutItems(
        query,
        p.key.split(',').map((i) => items[Number(i)]!),
      ),
      symmetric: p.symmetric,
    }));
    const rows = await formStats(s, [...base, ...forms]);
    chunk.forEach((p, i) => found.set(p.key, { rows, at: base.length + i }));
  }
  return (k, key) => {
    const f = found.get(key);
    return f?.rows.get(k)?.forms[f.at];
  };
}
