/**
 * Holdout metrics, computed in the warehouse over every person of the holdout part (15% of the graph,
 * never sampled for training or validation), from the scores table.
 *
 * - ROC AUC by the rank sum over distinct scores (ties count half), log loss, prevalence: one
 *   statement over the scores grouped by value.
 * - Lift by decile: holdout persons ordered by score (ties by the seeded hash), cut in ten equal
 *   parts; lift = the decile's positive rate over the holdout's.
 * - Precision and recall at the cut: holdout persons scoring at or above the segment's lowest score.
 *   For similarity, recall at the cut is the share of held-out seed members the segment would have
 *   caught (the AWS Clean Rooms "recall" idea).
 *
 * Privacy (docs/decisions/024-model-engine.md): a figure is shown only when at least `floor` positive
 * persons AND at least `floor` other persons stand on each side of what it counts; otherwise it is
 * null and named in `withheld`. A decile with 12 converters says something about 12 people.
 */
import { partSql } from '../data/labels.ts';
import { tieBreakSql } from '../score.ts';
import type { ModelWarehouse } from '../types.ts';

export interface DecileLift {
  decile: number;
  persons: number;
  positives: number | null;
  lift: number | null;
}

export interface HoldoutMetrics {
  persons: number;
  positives: number | null;
  prevalence: number | null;
  roc_auc: number | null;
  log_loss: number | null;
  top_decile_lift: number | null;
  deciles: DecileLift[];
  precision_at_cut: number | null;
  recall_at_cut: number | null;
  /** Metrics not shown, each with the reason. */
  withheld: string[];
}

export interface HoldoutInput {
  scores: string;
  labels: string;
  seed: number;
  floor: number;
  /** The segment's lowest score; null when the segment is empty. */
  cut: number | null;
}

export async function holdoutMetrics(wh: ModelWarehouse, o: HoldoutInput): Promise<HoldoutMetrics> {
  const holdout = `SELECT s.person_key, s.score, l.person_key IS NOT NULL AS y FROM ${o.scores} s
    LEFT JOIN ${o.labels} l ON l.person_key = s.person_key WHERE ${partSql('s.person_key', o.seed)} = 2`;
  const cut = o.cut === null ? 'NULL::DOUBLE' : `${o.cut.toExponential()}`;
  const [t] = await wh.query<Record<string, number | null>>(`
    WITH h AS (${holdout}),
    g AS (SELECT score, count(*) FILTER (WHERE y) AS pos, count(*) FILTER (WHERE NOT y) AS neg FROM h GROUP BY score),
    c AS (SELECT *, coalesce(sum(neg) OVER (ORDER BY score ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS below FROM g)
    SELECT coalesce(sum(pos), 0)::BIGINT AS pos, coalesce(sum(neg), 0)::BIGINT AS neg,
      sum(pos * (below + neg / 2.0)) AS u,
      sum(pos * -ln(greatest(score, 1e-15)) + neg * -ln(greatest(1.0 - score, 1e-15))) AS ll,
      coalesce(sum(CASE WHEN score >= ${cut} THEN pos + neg ELSE 0 END), 0)::BIGINT AS above,
      coalesce(sum(CASE WHEN score >= ${cut} THEN pos ELSE 0 END), 0)::BIGINT AS pos_above
    FROM c`);
  const pos = Number(t!.pos);
  const neg = Number(t!.neg);
  const persons = pos + neg;
  const withheld: string[] = [];
  const enough = (a: number, b: number) => a >= o.floor && b >= o.floor;
  const classesOk = enough(pos, neg);
  if (!classesOk) withheld.push(`roc_auc, log_loss, prevalence: fewer than ${o.floor} positive or other persons in the holdout`);
  const prevalence = classesOk ? pos / persons : null;

  const deciles = await decileLifts(wh, holdout, o.seed);
  const shownDeciles = deciles.map((d) => {
    const ok = classesOk && enough(d.positives, d.persons - d.positives);
    return {
      decile: d.decile,
      persons: d.persons,
      positives: ok ? d.positives : null,
      lift: ok ? d.positives / d.persons / prevalence! : null,
    };
  });
  const hidden = shownDeciles.filter((d) => d.lift === null).map((d) => d.decile);
  if (hidden.length > 0) withheld.push(`lift of decile ${hidden.join(', ')}: fewer than ${o.floor} positive or other persons in it`);

  const above = Number(t!.above);
  const posAbove = Number(t!.pos_above);
  const cutOk = classesOk && enough(posAbove, above - posAbove) && pos - posAbove >= o.floor;
  if (!cutOk) withheld.push(`precision_at_cut, recall_at_cut: fewer than ${o.floor} positive or other persons on a side of the cut`);
  return {
    persons,
    positives: classesOk ? pos : null,
    prevalence,
    roc_auc: classesOk ? Number(t!.u) / (pos * neg) : null,
    log_loss: classesOk ? Number(t!.ll) / persons : null,
    top_decile_lift: shownDeciles[0]?.lift ?? null,
    deciles: shownDeciles,
    precision_at_cut: cutOk ? posAbove / above : null,
    recall_at_cut: cutOk ? posAbove / pos : null,
    withheld,
  };
}

async function decileLifts(wh: ModelWarehouse, holdout: string, seed: number) {
  const rows = await wh.query<{ decile: number; persons: number; positives: number }>(`
    WITH h AS (${holdout}),
    r AS (SELECT y, row_number() OVER (ORDER BY score DESC, ${tieBreakSql('person_key', seed)}) AS rn, count(*) OVER () AS n FROM h)
    SELECT 1 + ((rn - 1) * 10) // n AS decile, count(*) AS persons, count(*) FILTER (WHERE y) AS positives
    FROM r GROUP BY 1 ORDER BY 1`);
  return rows.map((r) => ({ decile: Number(r.decile), persons: Number(r.persons), positives: Number(r.positives) }));
}
