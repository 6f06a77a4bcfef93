/**
 * The two ways a question of raw filters is measured give the same Measured (decision 052, "cost"): by
 * condition masks (by-masks.ts, one scan; for a total above `sampleRows`, a sample, the bucket's logic and
 * exact counts of what is left) and by forms (by-forms.ts, one scan per form plus the removal patterns).
 * Over many varied questions, each grouping: no grouping, group_by, the default breakdowns.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOG_FIELDS } from '../../src/graph/person-fields.ts';
import { seededRandom } from '../../src/lib/random.ts';
import type { FilterCondition, FilterGroup } from '../../src/graph/filters/index.ts';
import type { MembershipQuery } from '../../src/graph/membership/types.ts';
import { openWarehouse, type Warehouse } from '../../src/graph/warehouse.ts';
import { createPrivacyWithSecret, type Measured, type MeasureOptions } from '../../src/modules/privacy/index.ts';
import { TEST_NOISE_SECRET } from '../helpers/privacy.ts';
import { anyOf, c, privacyGraph } from '../helpers/privacy-attacks.ts';
import { GRAPH_PERSONS, readPersons, type PersonRow } from '../discovery/graph.ts';

const privacy = createPrivacyWithSecret({ secret: TEST_NOISE_SECRET, floor: 50, lookupK: 10 });

/** Varied questions over the graph's own values: narrow and broad conditions, implied, redundant and one-person branches. */
function questions(rows: readonly PersonRow[], count: number, perBranch = 3): MembershipQuery[] {
  const r = seededRandom(52 + perBranch);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;
  const person = () => rows[Math.floor(r() * rows.length)]!;
  const condition = (): FilterCondition => {
    const p = person();
    switch (Math.floor(r() * 9)) {
      case 0:
        return c('state', '=', String(p.state));
      case 1:
        return c('state', 'IN', [String(p.state), String(person().state)]);
      case 2: {
        const a = 18 + Math.floor(r() * 60);
        return c('age', 'BETWEEN', [a, a + Math.floor(r() * 20)]);
      }
      case 3:
        return c('gender', '=', pick(['M', 'F']));
      case 4:
        return c('age', pick(['<', '>=', '!=']), 18 + Math.floor(r() * 60));
      case 5:
        return c('city', '=', String(p.city).toLowerCase());
      case 6:
        return c('zip5', '=', String(p.zip5));
      case 7:
        return c('marital_status', '=', String(p.marital_status ?? 'single'));
      default:
        return c('income_band', 'IS NOT NULL');
    }
  };
  const out: MembershipQuery[] = [];
  for (let i = 0; i < count; i++) {
    const branches: FilterCondition[][] = [];
    const nb = 1 + Math.floor(r() * 3);
    for (let b = 0; b < nb; b++) branches.push(Array.from({ length: 1 + Math.floor(r() * perBranch) }, condition));
    const p = person();
    // One-person branches, redundant copies and implied conditions: the items low-effect detection is for.
    if (r() < 0.4)
      branches.push([c('zip5', '=', String(p.zip5)), c('age', '=', Number(p.age)), c('gender', '=', String(p.gender))].slice(0, perBranch));
    if (r() < 0.3) branches.push([...branches[0]!, condition()].slice(0, perBranch));
    if (r() < 0.3 && branches[0]!.length < perBranch) branches[0]!.push(c('state', '!=', 'ZZ'));
    out.push(anyOf(...branches));
  }
  return out;
}

const comparable = (m: Measured) => ({
  total: m.total,
  query: m.query,
  lowEffect: m.lowEffect,
  buckets: [...m.buckets].sort((a, b) =>
    JSON.stringify([a.dimension, a.group_value]).localeCompare(JSON.stringify([b.dimension, b.group_value])),
  ),
});

describe('measuring raw filters by masks gives what measuring by forms gives', () => {
  let w: Warehouse;
  let qs: MembershipQuery[];
  let narrow: MembershipQuery[];
  let rows: PersonRow[];
  const run = (sql: string, params: unknown[]) => w.query(sql, params);

  beforeAll(async () => {
    const dataDir = await privacyGraph();
    w = await openWarehouse({ dataDir, threads: 1, connections: 1, memoryLimit: '512MB' });
    rows = await readPersons(dataDir);
    qs = questions(rows, 40);
    narrow = questions(rows, 40, 2);
  }, 300_000);
  afterAll(() => w?.close());

  const groupings: [string, Partial<MeasureOptions>][] = [
    ['no grouping', {}],
    ['group_by state', { dim: { name: 'state', column: 'state', field: 'state' } }],
    ['group_by age', { dim: { name: 'age', column: 'age', field: 'age' } }],
    ['default breakdowns', { breakdown: true }],
  ];
  it.each(groupings)(
    '%s: 80 questions, the same sets, layers and removed items, read whole or from a sample',
    async (_, grouping) => {
      let lowEffect = 0;
      let fewerStatements = 0;
      for (const q of [...qs, ...narrow]) {
        const base = { catalog: CATALOG_FIELDS, ...grouping };
        const byForms = await privacy.measure(run, q, { ...base, strategy: 'forms' });
        const byMasks = await privacy.measure(run, q, { ...base, persons: GRAPH_PERSONS });
        expect(comparable(byMasks), JSON.stringify(q)).toEqual(comparable(byForms));
        // A sample of about 1,000 rows (5%): a grouping reads only the buckets where the question has someone.
        const sampled = await privacy.measure(run, q, { ...base, persons: GRAPH_PERSONS, sampleRows: 1000, release: 'privacy-graph' });
        expect(comparable(sampled), JSON.stringify(q)).toEqual(comparable(byForms));
        lowEffect += byForms.lowEffect + byForms.buckets.filter((b) => b.set.layers.length < byForms.total.layers.length + 1).length;
        if (byMasks.statements < byForms.statements) fewerStatements += 1;
      }
      // The questions do exercise removal, and masks read less.
      expect(lowEffect).toBeGreaterThan(5);
      expect(fewerStatements).toBeGreaterThan(10);
    },
    300_000,
  );

  it('location facts settle a state implied by its cities without reading: the same Measured, a statement fewer', async () => {
    // The largest cities of one state only in this graph, beside their state, as a marketer writes them.
    const statesOf = new Map<string, Set<string>>();
    const size = new Map<string, number>();
    const stateSize = new Map<string, number>();
    for (const r of rows) {
      stateSize.set(String(r.state), (stateSize.get(String(r.state)) ?? 0) + 1);
      statesOf.set(String(r.city), (statesOf.get(String(r.city)) ?? new Set()).add(String(r.state)));
      size.set(String(r.city), (size.get(String(r.city)) ?? 0) + 1);
    }
    const single = [...statesOf].filter(([, st]) => st.size === 1).sort(([a], [b]) => size.get(b)! - size.get(a)!);
    let fewer = 0;
    for (const [city, st] of single.slice(0, 6)) {
      const other = [...stateSize].sort((a, b) => b[1] - a[1]).find(([x]) => x !== [...st][0])![0];
      const q = anyOf([c('state', '=', [...st][0]!), c('city', '=', city)], [c('state', '=', other), c('age', 'BETWEEN', [25, 44])]);
      // Nearly the whole table: the sample shows every item that changes a few persons; only the state's is left.
      const sample = { catalog: CATALOG_FIELDS, persons: GRAPH_PERSONS, sampleRows: GRAPH_PERSONS - 1 };
      const withFacts = await privacy.measure(run, q, { ...sample, release: 'privacy-graph' });
      const without = await privacy.measure(run, q, sample);
      const byForms = await privacy.measure(run, q, { catalog: CATALOG_FIELDS, strategy: 'forms' });
      expect(comparable(withFacts), JSON.stringify(q)).toEqual(comparable(byForms));
      expect(comparable(without)).toEqual(comparable(byForms));
      if (withFacts.statements < without.statements) fewer += 1;
    }
    expect(fewer).toBeGreaterThanOrEqual(4);
  }, 300_000);

  it('a total over a sample (sampleRows below the graph) is the same as measured exactly', async () => {
    let sampled = 0;
    for (const q of [...qs, ...narrow]) {
      const exact = await privacy.measure(run, q, { catalog: CATALOG_FIELDS, strategy: 'forms' });
      const fromSample = await privacy.measure(run, q, {
        catalog: CATALOG_FIELDS,
        persons: GRAPH_PERSONS,
        sampleRows: 1000,
        release: 'privacy-graph',
      });
      expect(comparable(fromSample), JSON.stringify(q)).toEqual(comparable(exact));
      sampled += 1;
    }
    expect(sampled).toBe(80);
  }, 300_000);
});

describe('a capped segment whose cap keeps everyone is measured uncapped, with the same answer', () => {
  let w: Warehouse;
  let qs: MembershipQuery[];
  const run = (sql: string, params: unknown[]) => w.query(sql, params);

  beforeAll(async () => {
    const dataDir = await privacyGraph();
    w = await openWarehouse({ dataDir, threads: 1, connections: 1, memoryLimit: '512MB' });
    qs = questions(await readPersons(dataDir), 12, 2);
  }, 300_000);
  afterAll(() => w?.close());

  const capped = (q: MembershipQuery, limit: number, version: string): MembershipQuery => ({
    kind: 'composition',
    composition: {
      include: [
        {
          kind: 'filter',
          segmentId: `seg_${version}`,
          groups: (q as { groups: FilterGroup[] }).groups,
          recordLimit: limit,
          subsetSeed: version,
        },
      ],
      exclude: [],
      setLogic: 'union',
    },
  });

  it('caps of 1,000,000 (vacuous) and of 60 (not): the same Measured as by forms, the cap kept in the question answered', async () => {
    for (const q of qs) {
      for (const limit of [1_000_000, 60]) {
        const c = capped(q, limit, `v${limit}`);
        const byForms = await privacy.measure(run, c, { catalog: CATALOG_FIELDS, strategy: 'forms' });
        const measured = await privacy.measure(run, c, { catalog: CATALOG_FIELDS, persons: GRAPH_PERSONS });
        expect(comparable(measured), JSON.stringify(c)).toEqual(comparable(byForms));
        const answered = measured.query as { composition: { include: { recordLimit: number }[] } };
        expect(answered.composition.include[0]?.recordLimit ?? limit).toBe(limit);
      }
      // A vacuous cap answers exactly what the segment answers uncapped.
      const uncapped = await privacy.measure(run, capped(q, 1_000_000, 'u'), { catalog: CATALOG_FIELDS });
      expect(uncapped.total).toEqual(
        (await privacy.measure(run, capped(q, 1_000_000, 'other-version'), { catalog: CATALOG_FIELDS })).total,
      );
    }
  }, 300_000);
});
