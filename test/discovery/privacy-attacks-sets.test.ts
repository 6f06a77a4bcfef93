/**
 * Issue #32: every class of its table, run against the privacy layer of decision 052 at the service layer
 * (the layer's `measure` over the real warehouse and a 20,000-person graph), scored over 16 targets against
 * the most-common-value guess; and, as the positive control, the same attacks against the wording-seeded
 * layer of decision 015, which they beat. The full-size measurement (10,000 requests per target) is
 * bench/privacy-attacks.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOG_FIELDS } from '../../src/graph/person-fields.ts';
import type { FilterGroup } from '../../src/graph/filters/index.ts';
import { membershipSql } from '../../src/graph/membership/sql.ts';
import type { MembershipQuery } from '../../src/graph/membership/types.ts';
import { openWarehouse, type Warehouse } from '../../src/graph/warehouse.ts';
import { createPrivacyWithSecret } from '../../src/modules/privacy/index.ts';
import { TEST_NOISE_SECRET } from '../helpers/privacy.ts';
import {
  ATTACKS,
  anyOf,
  attackContext,
  c,
  findTargets,
  runAttack,
  setEnv,
  wordingEnv,
  type AttackClass,
  type AttackContext,
  type AttackEnv,
  type Target,
  privacyGraph,
  ATTRIBUTE,
} from '../helpers/privacy-attacks.ts';
import { readPersons, type PersonRow } from './graph.ts';

const countOf = (q: MembershipQuery) => {
  const m = membershipSql(q, { catalog: CATALOG_FIELDS });
  return [m.count, m.params] as const;
};

const privacy = createPrivacyWithSecret({ secret: TEST_NOISE_SECRET, floor: 50, lookupK: 10 });

describe('issue #32 attack classes against the privacy layer by member set', () => {
  let w: Warehouse;
  let rows: PersonRow[];
  let ctx: AttackContext;
  let targets: Target[];
  let env: AttackEnv;
  let old: AttackEnv;
  const run = (sql: string, params: unknown[]) => w.query(sql, params);

  beforeAll(async () => {
    const dataDir = await privacyGraph();
    rows = await readPersons(dataDir);
    w = await openWarehouse({ dataDir, threads: 1, connections: 1, memoryLimit: '512MB' });
    ctx = attackContext(rows);
    targets = findTargets(rows, 16);
    env = setEnv(privacy, run, CATALOG_FIELDS);
    old = wordingEnv(privacy, run, CATALOG_FIELDS);
    expect(targets).toHaveLength(16);
    expect(ctx.nearThreshold.length).toBeGreaterThanOrEqual(8);
  }, 300_000);
  afterAll(() => w?.close());

  const classes = Object.keys(ATTACKS) as AttackClass[];
  // Without low-effect detection every class shows a signal (the answers with and without the target differ
  // by one person plus the noise of two different sets); with it, none: the answers do not depend on the target.
  it.each(classes)(
    '%s: over 16 targets no answer depends on the target; no better than the most-common-value guess + 10 points',
    async (cls) => {
      const r = await runAttack(env, ctx, targets, cls, cls === 'capped_segments' ? 1 : 2);
      expect(r.signal, JSON.stringify(r)).toBe(0);
      expect(r.success, JSON.stringify(r)).toBeLessThanOrEqual(r.baselineShare + 0.1);
    },
    300_000,
  );

  it('positive control: against the wording-seeded layer of decision 015 the same attacks win', async () => {
    // 600 requests per target (the issue measured 80-280 per attribute with a better-tuned recipe).
    const r = await runAttack(old, ctx, targets.slice(0, 6), 'rephrasing', 60);
    expect(r.success, JSON.stringify(r)).toBeGreaterThanOrEqual(r.baselineShare + 0.25);
  }, 300_000);

  it('rephrasings of one set answer one number: redundant OR branches, implied conditions, capped segments of every version', async () => {
    const p = [c('state', '=', ctx.states[0]!), c('age', '>=', 30)];
    const groups = (anyOf(p) as { kind: 'filters'; groups: FilterGroup[] }).groups;
    const seg = (recordLimit: number | null, seed: string) => ({
      kind: 'filter' as const,
      segmentId: `s${seed}`,
      groups,
      recordLimit,
      subsetSeed: seed,
    });
    const answers = new Set<number | null>();
    answers.add(await env.ask(anyOf(p)));
    for (let k = 1; k <= 6; k++) answers.add(await env.ask(anyOf(p, [...p, c('age', '>=', 30 + k)])));
    answers.add(await env.ask(anyOf([...p, c('age', '>=', 0)])));
    answers.add(await env.ask(anyOf([...p, c('age', '>', 20)], [...p, c('gender', '=', 'F'), c('age', '<=', 120)])));
    for (let k = 0; k < 4; k++)
      answers.add(
        await env.ask({ kind: 'composition', composition: { include: [seg(1_000_000, `v${k}`)], exclude: [], setLogic: 'union' } }),
      );
    expect([...answers]).toHaveLength(1);
  });

  it('one or two persons added by a branch or removed by a condition change nothing shown (total and buckets)', async () => {
    for (const t of targets.slice(0, 6)) {
      const p = [
        c(
          'state',
          '=',
          ctx.states.find((x) => x !== String(t.row.state))!,
        ),
      ];
      const me = [c('zip5', '=', t.zip), c('age', '=', t.age), c('gender', '=', t.gender)];
      expect(await env.ask(anyOf(p, me))).toBe(await env.ask(anyOf(p)));
      expect(await env.askGroups(anyOf(p, me))).toEqual(await env.askGroups(anyOf(p)));
      // The target's state without the target: (S AND zip != Z) OR (S AND age != A) is S minus the persons of Z aged A.
      const own = [c('state', '=', String(t.row.state))];
      const minus = anyOf([...own, c('zip5', '!=', t.zip)], [...own, c('age', '!=', t.age)]);
      expect(await env.ask(minus)).toBe(await env.ask(anyOf(own)));
      expect(await env.askGroups(minus)).toEqual(await env.askGroups(anyOf(own)));
    }
  });

  // Found by bench/privacy-attacks.ts at 10,000 requests per target (group_by, 2026-11-29: signal on 10 of
  // 16 targets): in the target's bucket of `P OR T`, removing T (the target) and a two-person condition of P
  // together changed 3 persons, so the condition stayed, while beside an empty T it went. Each group of
  // items (the branches; the conditions of one branch) is now decided apart (joint-removal.ts).
  it('a one-person branch removed does not change what is decided about the conditions of another branch (group_by)', async () => {
    let compared = 0;
    for (const t of targets) {
      const me = [c('zip5', '=', t.zip), c('age', '=', t.age), c('gender', '=', t.gender)];
      const states = ctx.states.filter((x) => x !== String(t.row.state));
      for (let k = 0; k < 40; k++) {
        const p = [c('state', '=', states[k % states.length]!), c('age', '>=', 18 + Math.floor(k / states.length))];
        expect(await env.askGroups(anyOf(p, me)), JSON.stringify([t.value, p])).toEqual(await env.askGroups(anyOf(p, [...p, ...me])));
        compared += 1;
      }
    }
    expect(compared).toBe(640);
  }, 120_000);

  it('the threshold follows the set: a set of 42-49 is answered by every phrasing or by none', async () => {
    let mixed = 0;
    for (const x of ctx.nearThreshold.slice(0, 12)) {
      const shown = new Set<boolean>();
      for (let k = 0; k < 10; k++) shown.add((await env.ask(anyOf(x, [...x, c('age', '!=', 300 + k)]))) !== null);
      if (shown.size > 1) mixed += 1;
    }
    expect(mixed).toBe(0);
  });

  it('the low-effect check costs one scan for a question without low-effect conditions', async () => {
    const m = await privacy.measure(
      run,
      anyOf([c('state', '=', ctx.states[0]!), c('age', 'BETWEEN', [30, 59])], [c('state', '=', ctx.states[1]!)]),
      { catalog: CATALOG_FIELDS },
    );
    expect(m.statements).toBe(1);
    expect(m.lowEffect).toBe(0);
  });
  // Found by bench/privacy-attacks.ts at 10,000 requests per target (threshold oracle, 8 of 16 against a
  // baseline of 6, 2026-11-29): items of low effect alone were removed together, and three conditions of the
  // target's branch zip AND age AND gender AND attribute, removed at once, turned it into the whole ZIP.
  // Removals are now accepted one by one while what they change together stays low (joint-removal.ts), on
  // every path: masks read whole, masks read from a sample (each refusal counted in one more statement), forms.
  it('the set answered differs from the question asked by fewer than a few persons, whatever is removed together in a branch', async () => {
    let worst = 0;
    for (const t of targets.slice(0, 4)) {
      if (worst >= 4) break;
      const sets = ctx.nearThreshold.filter((x) => x[0]!.value !== String(t.row.state));
      for (const x of sets.slice(0, 20)) {
        for (const v of ctx.values) {
          // With a rewording of x as a third branch, as the attack words it.
          const q = anyOf(
            x,
            [c('zip5', '=', t.zip), c('age', '=', t.age), c('gender', '=', t.gender), c(ATTRIBUTE, '=', v)],
            [...x, c('age', '!=', 999)],
          );
          const measured = await privacy.measure(run, q, { catalog: CATALOG_FIELDS });
          const asked = await privacy.measure(run, q, { catalog: CATALOG_FIELDS, strategy: 'forms' });
          const sampled = await privacy.measure(run, q, { catalog: CATALOG_FIELDS, persons: rows.length, sampleRows: 1000 });
          expect([asked.total, sampled.total]).toEqual([measured.total, measured.total]);
          const exact = (await run(...countOf(q)))[0] as { n: unknown };
          worst = Math.max(worst, Math.abs(measured.total.n - Number(exact.n)));
        }
      }
    }
    expect(worst).toBeLessThan(4);
  });
});
