/**
 * Labels and the train / validation / holdout split, in the warehouse.
 *
 * The split is a hash of the person key and the run's seed: `hash(person_key, seed, 'split') % 100`
 * below 70 is train, below 85 validation, the rest holdout. It needs no table (any statement can
 * recompute it), is the same on every run with the same seed, and never depends on the labels.
 * Labels are the persons of the caller's member set (seed or positive class), materialized once as a
 * key table in the warehouse's in-memory database, so every later statement joins a plain table.
 */
import type { MemberSet, ModelWarehouse } from '../types.ts';

export const PART = { train: 0, validation: 1, holdout: 2 } as const;

/** Part (0 train, 1 validation, 2 holdout) of the person key expression `key`. */
export function partSql(key: string, seed: number): string {
  const h = `hash(${key}, ${Math.trunc(seed)}::BIGINT, 'split') % 100`;
  return `(CASE WHEN ${h} < 70 THEN 0 WHEN ${h} < 85 THEN 1 ELSE 2 END)`;
}

export async function materializeLabels(wh: ModelWarehouse, table: string, set: MemberSet): Promise<void> {
  await wh.query(`CREATE TABLE ${table} AS SELECT DISTINCT person_key FROM (${set.sql}) s WHERE person_key IS NOT NULL`, [...(set.params ?? [])]);
}

export interface LabelCounts {
  /** Persons in the persons table. */
  graph: number;
  /** Labelled persons (seed or positive class) that are in the persons table. */
  labelled: number;
  /** Per part: labelled (pos) and the rest (neg). */
  parts: { pos: number; neg: number }[];
}

export async function countLabels(wh: ModelWarehouse, persons: string, labels: string, seed: number): Promise<LabelCounts> {
  const rows = await wh.query<{ part: number; y: boolean; n: number }>(`
    SELECT ${partSql('p.person_key', seed)} AS part, l.person_key IS NOT NULL AS y, count(*) AS n
    FROM ${persons} p LEFT JOIN ${labels} l ON l.person_key = p.person_key
    GROUP BY ALL`);
  const parts = [0, 1, 2].map(() => ({ pos: 0, neg: 0 }));
  for (const r of rows) {
    const p = parts[Number(r.part)]!;
    if (r.y) p.pos += Number(r.n); else p.neg += Number(r.n);
  }
  const labelled = parts.reduce((a, p) => a + p.pos, 0);
  return { graph: labelled + parts.reduce((a, p) => a + p.neg, 0), labelled, parts };
}

/**
 * Persons of a member set that are in the persons table: what a caller compares to the privacy floor
 * before launching a run (a seed segment of an older release may hold keys the current one lacks).
 */
export async function countMembers(wh: ModelWarehouse, set: MemberSet, persons = 'graph.discovery_persons'): Promise<number> {
  const [row] = await wh.query<{ n: number }>(
    `SELECT count(*) AS n FROM ${persons} p WHERE p.person_key IN (SELECT person_key FROM (${set.sql}) s)`, [...(set.params ?? [])]);
  return Number(row?.n ?? 0);
}
