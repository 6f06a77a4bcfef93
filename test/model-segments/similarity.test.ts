/**
 * Similarity and propensity segments over HTTP (spec 2, 3, 4.3, 4.4, 4.11, 6): create, the workflow
 * job through pg-boss, statuses, members usable in audiences and discovery, refresh, attach by
 * generation_metadata_id, events. Expected sizes are derived from an independent count of the graph.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { namedQuestion } from '../../src/modules/privacy/index.ts';
import { near, shownSet, testPrivacy } from '../helpers/privacy.ts';
import { testStores } from '../helpers/stores.ts';
import { PERSONS } from '../segments/graph.ts';
import { cond, setup, type ModelTest } from './setup.ts';

let m: ModelTest;
let CA: number;
let seedId: string;
/** decision 024: ten times the seed, at most a quarter of the candidates. */
const lookalikeSize = (seed: number) => Math.min(10 * seed, Math.floor((PERSONS - seed) / 4));

beforeAll(async () => {
  m = await setup();
  CA = (await m.g.keys(`state = 'CA'`)).size;
  seedId = await m.filterSegment([cond('state', '=', 'CA')], 'CA seed');
}, 120_000);
afterAll(async () => {
  await m?.stopWorker();
  await m?.t.app.close();
});

describe('similarity from a seed segment', () => {
  let sim: any;
  it('creates a pending segment with a workflow run, which the job completes', async () => {
    const res = await m.call('POST', '/v1/segments', { name: 'CA lookalikes', subtype: 'similarity', seed_segment_id: seedId });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    sim = res.body;
    expect(sim).toMatchObject({
      subtype: 'similarity',
      status: 'pending',
      record_count: null,
      record_count_reason: 'counting',
      seed_segment_id: seedId,
    });
    expect(sim.workflow_run_id).toMatch(/^wfr_[0-9A-Za-z]{20}$/);
    expect(sim.audience_id).toBeUndefined(); // create_audience defaults to false
    const pendingRun = await m.workflow(sim.workflow_run_id);
    expect(pendingRun.segment_id).toBe(sim.segment_id);

    const run = await m.waitRun(sim.workflow_run_id, ['completed', 'failed']);
    expect(run.status, JSON.stringify(run)).toBe('completed');
    expect(run.steps.map((s: any) => [s.name, s.status])).toEqual([
      ['seed', 'completed'],
      ['train_and_score', 'completed'],
      ['publish', 'completed'],
    ]);
    // Graph-derived figures go through the privacy layer (decision 015): the seed's size is what discovery
    // answers for its filters; the segment's size is its record_count, both noised, not exact.
    const seedShown = await shownSet({ filters: [cond('state', '=', 'CA')] }, await m.g.keys(`state = 'CA'`));
    expect(seedShown).not.toBe(CA);
    expect(run.steps[0].metrics).toEqual({ seed_persons: seedShown });
    expect(await m.shownLabelled(sim.workflow_run_id, CA)).toBe(seedShown);
    expect(run.gates).toEqual([]);
    expect(run.attempts).toBe(1);
    const size = await m.shownSize(sim.workflow_run_id, lookalikeSize(CA));
    expect(run.record_count).toBe(size);
    expect(run.model_summary).toMatchObject({ model_type: 'BOOSTED_TREE_CLASSIFIER', target_size: size, record_count: size });
    expect(run.metrics).toMatchObject({
      purpose: 'similarity',
      labelled_persons: seedShown,
      privacy_floor: 50,
      record_count: size,
      graph_persons: testPrivacy.protectCount({ question: namedQuestion('graph_persons'), trueCount: PERSONS }).count,
    });
    // Feature importances are named in catalog fields.
    for (const f of run.model_summary.top_fields) expect(typeof f.field).toBe('string');

    const seg = (await m.call('GET', `/v1/segments/${sim.segment_id}`)).body;
    expect(seg).toMatchObject({
      status: 'active',
      record_count: size,
      record_count_reason: null,
      workflow_run_id: sim.workflow_run_id,
      current_version: 1,
    });
    const events = await m.events(sim.segment_id);
    expect(events.map((e) => e.type)).toEqual(['segment.ready']);
    expect(events[0]!.data).toMatchObject({
      status: 'completed',
      subtype: 'similarity',
      audience_id: null,
      record_count: size,
      workflow_run_id: sim.workflow_run_id,
    });
    expect(events[0]!.data.model_summary).toEqual(run.model_summary);
    // Asked again, every figure is the same.
    const again = await m.workflow(sim.workflow_run_id);
    expect(again.metrics).toEqual(run.metrics);
    expect(again.steps).toEqual(run.steps);
  }, 90_000);

  it('excludes the seed, and its members compose into audiences and discovery counts', async () => {
    const members = await m.runMembers(sim.workflow_run_id);
    const seed = await m.g.keys(`state = 'CA'`);
    expect(members).toHaveLength(lookalikeSize(CA));
    expect(members.filter((k) => seed.has(k))).toEqual([]);
    // Discovery: the segment minus its seed is the segment itself.
    const minusSeed = await m.call('POST', '/v1/discovery/count', { segment_ids: [sim.segment_id], excluded_segment_ids: [seedId] });
    expect(minusSeed.status, JSON.stringify(minusSeed.body)).toBe(200);
    // Counts of compositions are graph-derived: shown through the privacy layer (decision 015).
    expect(minusSeed.body.count).toEqual(near(lookalikeSize(CA)));
    // An audience of it counts its members; with the seed unioned in, both.
    const a = await m.call('POST', '/v1/audiences', { name: 'lookalikes + seed', segment_ids: [sim.segment_id, seedId] });
    expect(a.status, JSON.stringify(a.body)).toBe(201);
    const counted = await m.call('POST', `/v1/audiences/${a.body.audience_id}/count`);
    expect(counted.body.record_count).toEqual(near(lookalikeSize(CA) + CA));
  });

  it('refresh relaunches from the stored seed: pending with a new run, then the same members again', async () => {
    const before = await m.runMembers(sim.workflow_run_id);
    const res = await m.call('POST', `/v1/segments/${sim.segment_id}/refresh`, {});
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ status: 'pending', refreshed: true, record_count: null, current_version: 2, seed_segment_id: seedId });
    expect(res.body.workflow_run_id).not.toBe(sim.workflow_run_id);
    expect(res.body.affected_audiences).toHaveLength(1);
    const run = await m.waitRun(res.body.workflow_run_id, ['completed', 'failed']);
    expect(run).toMatchObject({ status: 'completed', segment_version: 2 });
    expect(await m.runMembers(res.body.workflow_run_id)).toEqual(before);
    const seg = (await m.call('GET', `/v1/segments/${sim.segment_id}`)).body;
    expect(seg).toMatchObject({
      status: 'active',
      current_version: 2,
      record_count: await m.shownSize(res.body.workflow_run_id, lookalikeSize(CA)),
      workflow_run_id: res.body.workflow_run_id,
    });
    // The same seed and model settings: the model's own figures keep their noise (nothing fresh to average).
    expect((await m.workflow(res.body.workflow_run_id)).metrics.holdout).toEqual((await m.workflow(sim.workflow_run_id)).metrics.holdout);
    sim = seg;
  }, 90_000);

  it('refresh fields of other subtypes are refused; an archived segment refuses refresh', async () => {
    const bad = await m.call('POST', `/v1/segments/${sim.segment_id}/refresh`, { force: true });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: 'INVALID_REQUEST' });
    expect(bad.body.request_id).toBeTruthy();
    expect((await m.call('PATCH', `/v1/segments/${sim.segment_id}`, { status: 'archived' })).status).toBe(200);
    const archived = await m.call('POST', `/v1/segments/${sim.segment_id}/refresh`, {});
    expect(archived.status).toBe(409);
    expect(archived.body.error).toBe('SEGMENT_ARCHIVED');
    expect((await m.call('PATCH', `/v1/segments/${sim.segment_id}`, { status: 'active' })).body).toMatchObject({
      status: 'active',
      current_version: 2,
    });
  });

  it('generation_metadata_id attaches the completed run: active at once, no workflow', async () => {
    const before = await m.events('x');
    expect(before).toEqual([]);
    const res = await m.call('POST', '/v1/segments', {
      name: 'attached',
      subtype: 'similarity',
      generation_metadata_id: sim.workflow_run_id,
      create_audience: true,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    // The same member set as the run's segment: the same shown size (attaching again gives nothing fresh to average).
    expect(res.body).toMatchObject({
      status: 'active',
      record_count: sim.record_count,
      workflow_run_id: sim.workflow_run_id,
      seed_segment_id: seedId,
    });
    const aud = (await m.call('GET', `/v1/audiences/${res.body.audience_id}`)).body;
    expect(aud).toMatchObject({ status: 'active', record_count: sim.record_count });
    const count = await m.call('POST', '/v1/discovery/count', { segment_id: res.body.segment_id });
    expect(count.body.count).toEqual(near(lookalikeSize(CA)));
  });

  it("a duplicate reads the same members; a private segment's run is hidden from other users", async () => {
    const dup = await m.call('POST', `/v1/segments/${sim.segment_id}/duplicate`, {});
    expect(dup.status, JSON.stringify(dup.body)).toBe(201);
    expect(dup.body).toMatchObject({
      subtype: 'similarity',
      status: 'active',
      record_count: near(lookalikeSize(CA)),
      seed_segment_id: seedId,
    });
    const priv = await m.call('POST', '/v1/segments', {
      name: 'mine',
      subtype: 'similarity',
      seed_segment_id: seedId,
      visibility: 'private',
    });
    expect(priv.status).toBe(201);
    const colleague = await m.org.token(['discovery', 'creator'], await m.org.addUser('member'));
    const hidden = await m.call('GET', `/v1/workflows/${priv.body.workflow_run_id}`, undefined, colleague);
    expect(hidden.status).toBe(404);
    expect(hidden.body.error).toBe('WORKFLOW_NOT_FOUND');
    expect((await m.waitRun(priv.body.workflow_run_id, ['completed', 'failed'])).status).toBe('completed');
  }, 90_000);

  it('counts below the floor are shown as the layer shows them (null or at least the floor), never exactly', async () => {
    const run = await m.workflow(sim.workflow_run_id);
    const { database } = await testStores();
    const stored = await database.db
      .selectFrom('workflow_runs')
      .select('metrics')
      .where('id', '=', sim.workflow_run_id)
      .executeTakeFirstOrThrow();
    const truth = (typeof stored.metrics === 'string' ? JSON.parse(stored.metrics) : stored.metrics) as {
      holdout: { deciles: { persons: number }[] };
    };
    // 15% of 3,000 persons in ten deciles: about 45 each, below the floor.
    const small = truth.holdout.deciles.filter((d) => d.persons < 50).length;
    expect(small).toBeGreaterThan(0);
    truth.holdout.deciles.forEach((d, i) => {
      const shown = run.metrics.holdout.deciles[i].persons;
      if (d.persons < 50) expect(shown === null || shown >= 50).toBe(true);
      else expect(shown).toBeGreaterThanOrEqual(50);
    });
    // The smallest size a customer may ask for is the floor: shown through the layer, as its members' question.
    const res = await m.call('POST', '/v1/segments', { name: 'smallest', subtype: 'similarity', seed_segment_id: seedId, target_size: 50 });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const small50 = await m.waitRun(res.body.workflow_run_id, ['completed', 'failed']);
    expect(small50.status).toBe('completed');
    const size = await m.shownSize(res.body.workflow_run_id, 50);
    expect(small50.record_count).toBe(size);
    expect((await m.call('GET', `/v1/segments/${res.body.segment_id}`)).body).toMatchObject({
      record_count: size,
      record_count_reason: null,
    });
  }, 90_000);
});

describe('similarity from a description, without review', () => {
  it('builds from the filters read from the text', async () => {
    const res = await m.call('POST', '/v1/segments', {
      name: 'TX homeowners like',
      subtype: 'similarity',
      seed_description: 'homeowners in Texas',
      model_type: 'LOGISTIC_REG',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const run = await m.waitRun(res.body.workflow_run_id, ['completed', 'failed']);
    const seed = await m.g.keys(`homeowner AND state = 'TX'`);
    expect(run.status).toBe('completed');
    expect(run.gates).toEqual([]);
    expect(run.steps[0].metrics).toEqual({
      seed_persons: await shownSet({ filters: [cond('homeowner', '=', true), cond('state', '=', 'TX')] }, seed),
    });
    expect(run.model_summary).toMatchObject({
      model_type: 'LOGISTIC_REG',
      record_count: await m.shownSize(res.body.workflow_run_id, lookalikeSize(seed.size)),
    });
    // Logistic weights are noised and rounded to 2 decimals; odds ratios follow the shown weight.
    for (const f of run.metrics.features) {
      expect(Math.round(f.weight * 100)).toBeCloseTo(f.weight * 100, 6);
      expect(f.odds_ratio).toBe(Math.round(Math.exp(f.weight) * 100) / 100);
    }
    const members = await m.runMembers(res.body.workflow_run_id);
    expect(members.filter((k) => seed.has(k))).toEqual([]);
  }, 90_000);
});

describe('seed floor by the privacy layer (decision 015)', () => {
  it('a seed is refused exactly when discovery would not show its size (the sticky threshold), not at an exact 50', async () => {
    const states = ['CA', 'TX', 'NY', 'FL', 'IL', 'PA', 'OH', 'GA', 'NC', 'MI', 'NJ', 'VA', 'WA', 'AZ', 'MA'];
    let passed: { filters: unknown[]; n: number; keys: Set<bigint> } | null = null;
    let refused: { filters: unknown[]; n: number; keys: Set<bigint> } | null = null;
    for (const st of states) {
      for (let lo = 18; lo <= 80 && !(passed && refused); lo += 3) {
        for (const width of [2, 4, 6, 9, 14]) {
          const hi = lo + width;
          const keys = await m.g.keys(`state = '${st}' AND age BETWEEN ${lo} AND ${hi}`);
          const n = keys.size;
          if (n < 42 || n > 49) continue;
          const filters = [cond('state', '=', st), cond('age', 'BETWEEN', [lo, hi])];
          // Discovery shows a set by its members (decision 052); a seed is refused exactly as discovery refuses it.
          if ((await shownSet({ filters }, keys)) === null) refused ??= { filters, n, keys };
          else passed ??= { filters, n, keys };
        }
      }
    }
    expect(passed, 'a 42-49 set the layer shows').not.toBeNull();
    expect(refused, 'a 42-49 set the layer suppresses').not.toBeNull();
    // Shown by discovery, so accepted as a seed although below 50.
    const okSeed = await m.filterSegment(passed!.filters, 'just under the floor, shown');
    expect((await m.call('POST', '/v1/discovery/count', { filters: passed!.filters })).status).toBe(200);
    const ok = await m.call('POST', '/v1/segments', { name: 'from a shown seed', subtype: 'similarity', seed_segment_id: okSeed });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    const run = await m.waitRun(ok.body.workflow_run_id, ['completed', 'failed']);
    expect(run.status, JSON.stringify(run.error_message)).toBe('completed');
    expect(run.steps[0].metrics).toEqual({ seed_persons: await shownSet({ filters: passed!.filters }, passed!.keys) });
    // Suppressed by discovery, so refused as a seed: the same answer for the same set.
    const noSeed = await m.filterSegment(refused!.filters, 'just under the floor, suppressed');
    expect((await m.call('POST', '/v1/discovery/count', { filters: refused!.filters })).body).toMatchObject({
      error: 'AGGREGATION_FLOOR_NOT_MET',
    });
    const no = await m.call('POST', '/v1/segments', { name: 'from a suppressed seed', subtype: 'similarity', seed_segment_id: noSeed });
    expect(no.status).toBe(422);
    expect(no.body).toMatchObject({ error: 'AGGREGATION_FLOOR_NOT_MET' });
  }, 120_000);
});

describe('a seed is learned as the privacy layer answered it (decision 052)', () => {
  it('a one-person OR branch of the seed has no effect: the model learns from the rest', async () => {
    // A person outside CA, alone on ZIP + age + gender: the branch that names them changes the seed by one.
    const [row] = (
      await m.g.conn.runAndReadAll(`SELECT zip5, age, gender, person_key FROM graph.persons p
      WHERE state <> 'CA' AND age IS NOT NULL AND gender IS NOT NULL AND zip5 IS NOT NULL
      QUALIFY count(*) OVER (PARTITION BY zip5, age, gender) = 1 ORDER BY person_key LIMIT 1`)
    ).getRowObjectsJS() as { zip5: string; age: number; gender: string; person_key: bigint }[];
    expect(row).toBeDefined();
    const one = [cond('zip5', '=', row!.zip5), cond('age', '=', Number(row!.age)), cond('gender', '=', row!.gender)];
    const seedWithOne = (
      await m.call('POST', '/v1/segments', {
        name: 'CA and one more',
        create_audience: false,
        filter_groups: [
          { id: 'ca', combinator: 'AND', filters: [cond('state', '=', 'CA')] },
          { id: 'one', combinator: 'OR', filters: one },
        ],
      })
    ).body.segment_id as string;
    const res = await m.call('POST', '/v1/segments', {
      name: 'CA plus one lookalikes',
      subtype: 'similarity',
      seed_segment_id: seedWithOne,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const run = await m.waitRun(res.body.workflow_run_id, ['completed', 'failed']);
    expect(run.status, JSON.stringify(run.error_message)).toBe('completed');
    // The seed's size is CA's (the branch of one person is of low effect), and so is what the model learned
    // from: the run's own record of the persons it labelled holds CA's count, not CA's plus one.
    expect(run.steps[0].metrics).toEqual({
      seed_persons: await shownSet({ filters: [cond('state', '=', 'CA')] }, await m.g.keys(`state = 'CA'`)),
    });
    const { database } = await testStores();
    const stored = await database.db
      .selectFrom('workflow_runs')
      .select(['metrics', 'input'])
      .where('id', '=', res.body.workflow_run_id)
      .executeTakeFirstOrThrow();
    const parse = (v: unknown) => (typeof v === 'string' ? JSON.parse(v) : v) as Record<string, any>;
    expect(parse(stored.metrics).labelled_persons).toBe(CA);
    expect(JSON.stringify(parse(stored.input).answered_query)).not.toContain(row!.zip5);
  }, 120_000);
});
