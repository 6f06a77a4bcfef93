/**
 * The averaging attacks of issue #32, one per class of its table, run at the service layer (the privacy
 * layer's `measure` over the real warehouse and graph), and scored against the most-common-value guess.
 * Shared by test/discovery/privacy-attacks-sets.test.ts (small budgets) and bench/privacy-attacks.ts
 * (10,000 requests per target). Each attack infers a target's `marital_status`; targets are persons
 * unique on ZIP + age + gender, so one branch `zip5 = Z AND age = A AND gender = G AND marital_status = v`
 * selects the target exactly when v is the target's value.
 */
import type { FilterCondition, FilterGroup } from '../../src/graph/filters/index.ts';
import type { Composition, MembershipQuery, SegmentMembership } from '../../src/graph/membership/types.ts';
import { questionOf, type Measured, type Privacy } from '../../src/modules/privacy/index.ts';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GRAPH_PERSONS, type PersonRow } from '../discovery/graph.ts';
import { sharedGraph } from './shared-graph.ts';

/** The 20,000-person graph the privacy attack and honest-use tests share (one copy per machine). */
export function privacyGraph(): Promise<string> {
  return sharedGraph(join(tmpdir(), 'ads-privacy-attacks-graph'), {
    persons: GRAPH_PERSONS,
    seed: 11,
    releaseDate: '2026-01-01',
    threads: 1,
    memoryLimit: '512MB',
  });
}

export const ATTRIBUTE = 'marital_status';
const s = (v: unknown) => (v === null || v === undefined ? null : String(v));
export const c = (field: string, op: FilterCondition['op'], value?: FilterCondition['value']): FilterCondition => ({
  field,
  op,
  ...(value === undefined ? {} : { value }),
});
/** Raw filters: OR of AND branches. */
export const anyOf = (...branches: FilterCondition[][]): MembershipQuery => ({
  kind: 'filters',
  groups: branches.map((filters, i): FilterGroup => ({ id: `g${i}`, combinator: i === 0 ? 'AND' : 'OR', filters })),
});
const filterSegment = (q: MembershipQuery, id: string, recordLimit: number | null = null, subsetSeed = 'v1'): SegmentMembership => ({
  kind: 'filter',
  segmentId: id,
  groups: (q as { groups: FilterGroup[] }).groups,
  recordLimit,
  subsetSeed,
});
const composition = (include: SegmentMembership[], setLogic: Composition['setLogic'] = 'union'): MembershipQuery => ({
  kind: 'composition',
  composition: { include, exclude: [], setLogic },
});

export interface Target {
  row: PersonRow;
  zip: string;
  age: number;
  gender: string;
  value: string;
}
export interface AttackEnv {
  /** The count shown for a question (null: refused). */
  ask(q: MembershipQuery): Promise<number | null>;
  /** The groups shown for a question grouped by the attribute. */
  askGroups(q: MembershipQuery): Promise<Map<string | null, number>>;
}

/** The privacy layer of decision 052 over a warehouse: measure by member set, show by set. */
export function setEnv(
  privacy: Privacy,
  run: (sql: string, params: unknown[]) => Promise<Record<string, unknown>[]>,
  catalog: Parameters<Privacy['measure']>[2]['catalog'],
): AttackEnv {
  return {
    async ask(q) {
      const m = await privacy.measure(run, q, { catalog });
      return privacy.protectSet({ set: m.total }).count;
    },
    async askGroups(q) {
      const m = await privacy.measure(run, q, { catalog, dim: { name: ATTRIBUTE, column: ATTRIBUTE } });
      return new Map(privacy.protectMeasuredGroups(m.buckets).groups.map((g) => [s(g.group_value), g.count]));
    },
  };
}

/**
 * The layer of decision 015 (noise seeded by the canonical wording, no low-effect detection), over the
 * same warehouse: the positive control, showing that the attacks work when the defence is absent.
 */
export function wordingEnv(
  privacy: Privacy,
  run: (sql: string, params: unknown[]) => Promise<Record<string, unknown>[]>,
  catalog: Parameters<Privacy['measure']>[2]['catalog'],
): AttackEnv {
  const exact = async (q: MembershipQuery): Promise<Measured> => {
    // One statement without forms: the true count of the question as asked.
    const { setStatsSql } = await import('../../src/graph/membership/sets.ts');
    const sql = setStatsSql([{ query: q }], { catalog });
    const [row] = await run(sql.sql, sql.params);
    return { total: { n: Number(row?.n ?? 0), h: '0', layers: [], matched: null }, query: q, lowEffect: 0, buckets: [], statements: 1 };
  };
  return {
    async ask(q) {
      return privacy.protectCount({ question: questionOf(q), trueCount: (await exact(q)).total.n }).count;
    },
    async askGroups() {
      throw new Error('not used');
    },
  };
}

/** Persons unique on ZIP + age + gender with a known attribute: the targets. */
export function findTargets(rows: readonly PersonRow[], count: number): Target[] {
  const key = (r: PersonRow) => `${s(r.zip5)}|${s(r.age)}|${s(r.gender)}`;
  const seen = new Map<string, number>();
  for (const r of rows) seen.set(key(r), (seen.get(key(r)) ?? 0) + 1);
  const out: Target[] = [];
  for (const r of rows) {
    if (out.length >= count) break;
    if (r.zip5 === null || r.age === null || r.gender === null || r[ATTRIBUTE] === null || seen.get(key(r)) !== 1) continue;
    out.push({ row: r, zip: s(r.zip5)!, age: Number(r.age), gender: s(r.gender)!, value: s(r[ATTRIBUTE])! });
  }
  return out;
}

export interface AttackContext {
  rows: readonly PersonRow[];
  /** The attribute's values, most common first (the attacker's prior: ties go to the most common). */
  values: string[];
  /** Large states (>= 300 persons), largest first: paddings. */
  states: string[];
  /** Sets of 40-49 persons (state AND an age range), for the threshold oracle. */
  nearThreshold: FilterCondition[][];
}

export function attackContext(rows: readonly PersonRow[]): AttackContext {
  const tally = (of: (r: PersonRow) => string | null) => {
    const m = new Map<string, number>();
    for (const r of rows) {
      const k = of(r);
      if (k !== null) m.set(k, (m.get(k) ?? 0) + 1);
    }
    return [...m].sort((a, b) => b[1] - a[1]);
  };
  const values = tally((r) => s(r[ATTRIBUTE])).map(([v]) => v);
  const byState = tally((r) => s(r.state));
  const states = byState.filter(([, n]) => n >= 300).map(([k]) => k);
  const nearThreshold: FilterCondition[][] = [];
  for (const [st] of byState) {
    const ages = rows
      .filter((r) => s(r.state) === st && r.age !== null)
      .map((r) => Number(r.age))
      .sort((a, b) => a - b);
    for (let lo = 0; lo + 40 < ages.length && nearThreshold.length < 400; lo += 7) {
      const a = ages[lo]!;
      const hi = ages.find((x, i) => i >= lo + 40 && x > a) ?? null;
      if (hi === null) break;
      const n = ages.filter((x) => x >= a && x <= hi).length;
      if (n >= 40 && n <= 49) nearThreshold.push([c('state', '=', st), c('age', 'BETWEEN', [a, hi])]);
    }
  }
  return { rows, values, states, nearThreshold };
}

const targetBranch = (t: Target, v?: string) => [
  c('zip5', '=', t.zip),
  c('age', '=', t.age),
  c('gender', '=', t.gender),
  ...(v === undefined ? [] : [c(ATTRIBUTE, '=', v)]),
];
/** The k-th padding: a large state other than the target's, narrowed by an age floor (many distinct large sets). */
function padding(ctx: AttackContext, t: Target, k: number): FilterCondition[] {
  const states = ctx.states.filter((x) => x !== s(t.row.state));
  return [c('state', '=', states[k % states.length]!), c('age', '>=', 18 + Math.floor(k / states.length))];
}

/** The guess from a score per value: the highest, ties to the most common value. */
function guess(ctx: AttackContext, score: Map<string, number>): string {
  let best = ctx.values[0]!;
  for (const v of ctx.values) if ((score.get(v) ?? 0) > (score.get(best) ?? 0)) best = v;
  return best;
}
const num = (x: number | null) => x ?? 0;

export type AttackClass = 'rephrasing' | 'layers_cancel' | 'group_by' | 'segment_union' | 'capped_segments' | 'threshold_oracle';
/** An attack returns its score per value (the sum of differences it observed); the guess is the highest. */
export type Attack = (env: AttackEnv, ctx: AttackContext, t: Target, samples: number) => Promise<Map<string, number>>;

export const ATTACKS: Record<AttackClass, Attack> = {
  /**
   * One padding P, the target branch T, and k redundant branches `P AND age >= x` (P OR (P AND x) is P):
   * fresh wording, same set. `P OR T` against `P OR (P AND T)`: the same distinct conditions, P's set.
   */
  async rephrasing(env, ctx, t, samples) {
    const p = padding(ctx, t, 0);
    const score = new Map<string, number>();
    for (const v of ctx.values) {
      for (let k = 0; k < samples; k++) {
        const extra = k === 0 ? [] : [[...p, c('age', '>=', 18 + k)]];
        const with1 = num(await env.ask(anyOf(p, targetBranch(t, v), ...extra)));
        const without = num(await env.ask(anyOf(p, [...p, ...targetBranch(t, v)], ...extra)));
        score.set(v, (score.get(v) ?? 0) + with1 - without);
      }
    }
    return score;
  },
  /** Pairs over many paddings sharing every condition but the target branch: condition layers cancel in each difference. */
  async layers_cancel(env, ctx, t, samples) {
    const score = new Map<string, number>();
    for (let k = 0; k < samples; k++) {
      const p = padding(ctx, t, k);
      for (const v of ctx.values) {
        const base = num(await env.ask(anyOf(p, [...p, ...targetBranch(t, v)])));
        score.set(v, (score.get(v) ?? 0) + num(await env.ask(anyOf(p, targetBranch(t, v)))) - base);
      }
    }
    return score;
  },
  /** Per-bucket differences of the padding with and without the target's branch, over many paddings. */
  async group_by(env, ctx, t, samples) {
    const score = new Map<string, number>();
    for (let k = 0; k < samples; k++) {
      const p = padding(ctx, t, k);
      const a = await env.askGroups(anyOf(p, targetBranch(t)));
      const b = await env.askGroups(anyOf(p, [...p, ...targetBranch(t)]));
      for (const v of ctx.values) score.set(v, (score.get(v) ?? 0) + (a.get(v) ?? 0) - (b.get(v) ?? 0));
    }
    return score;
  },
  /** Saved filter segments composed by union: padding segment + the target's segment, against the padding alone. */
  async segment_union(env, ctx, t, samples) {
    const score = new Map<string, number>();
    for (let k = 0; k < samples; k++) {
      const pad = padding(ctx, t, k);
      const p = filterSegment(anyOf(pad), `pad${k}`);
      for (const v of ctx.values) {
        const base = num(await env.ask(composition([p, filterSegment(anyOf([...pad, ...targetBranch(t, v)]), `b${v}`)])));
        score.set(v, (score.get(v) ?? 0) + num(await env.ask(composition([p, filterSegment(anyOf(targetBranch(t, v)), `t${v}`)]))) - base);
      }
    }
    return score;
  },
  /** A capped filter segment (record_limit above its size) per version: same people, new segment id and subset seed each time. */
  async capped_segments(env, ctx, t, samples) {
    const p = padding(ctx, t, 0);
    const score = new Map<string, number>();
    for (const v of ctx.values) {
      for (let k = 0; k < samples; k++) {
        const with1 = num(await env.ask(composition([filterSegment(anyOf(p, targetBranch(t, v)), `seg${v}${k}`, 1_000_000, `v${k}`)])));
        const without = num(
          await env.ask(composition([filterSegment(anyOf(p, [...p, ...targetBranch(t, v)]), `base${v}${k}`, 1_000_000, `v${k}`)])),
        );
        score.set(v, (score.get(v) ?? 0) + with1 - without);
      }
    }
    return score;
  },
  /** Sets of 40-49 persons with and without the target's branch: the value whose union is answered more often. */
  async threshold_oracle(env, ctx, t, samples) {
    const score = new Map<string, number>();
    const sets = ctx.nearThreshold.filter((x) => x[0]!.value !== s(t.row.state));
    for (let k = 0; k < samples; k++) {
      const x = sets[k % sets.length]!;
      const extra = k < sets.length ? [] : [[...x, c('age', '!=', 200 + k)]];
      for (const v of ctx.values) {
        const base = (await env.ask(anyOf(x, [...x, ...targetBranch(t, v)], ...extra))) === null ? 0 : 1;
        score.set(v, (score.get(v) ?? 0) + ((await env.ask(anyOf(x, targetBranch(t, v), ...extra))) === null ? 0 : 1) - base);
      }
    }
    return score;
  },
};

/**
 * Success of one attack class over the targets, beside the most-common-value baseline; `signal` counts
 * the targets for which any answer depended on the target at all (a score not zero).
 */
export async function runAttack(env: AttackEnv, ctx: AttackContext, targets: readonly Target[], cls: AttackClass, samples: number) {
  let right = 0;
  let signal = 0;
  for (const t of targets) {
    const score = await ATTACKS[cls](env, ctx, t, samples);
    if (guess(ctx, score) === t.value) right += 1;
    if ([...score.values()].some((x) => x !== 0)) signal += 1;
  }
  const baseline = targets.filter((t) => t.value === ctx.values[0]).length;
  return {
    cls,
    targets: targets.length,
    right,
    baseline,
    signal,
    success: right / targets.length,
    baselineShare: baseline / targets.length,
  };
}
