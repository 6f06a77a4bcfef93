/**
 * Review gates of hitl builds (spec 4.3 hitl, 4.11 resume): the seed read from a description shown
 * for review and edited, the model evaluation approved or rejected, resume errors, a worker crash
 * mid-run resumed by pg-boss, and a relaunch that cannot be enqueued.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shownSet } from '../helpers/privacy.ts';
import { PERSONS } from '../segments/graph.ts';
import { cond, setup, type ModelTest } from './setup.ts';

let m: ModelTest;
const lookalikeSize = (seed: number) => Math.min(10 * seed, Math.floor((PERSONS - seed) / 4));
const resume = (id: string, body: unknown) => m.call('POST', `/v1/workflows/${id}/resume`, body);

beforeAll(async () => {
  m = await setup();
}, 120_000);
afterAll(async () => {
  await m?.stopWorker();
  await m?.t.app.close();
});

describe('seed description with review', () => {
  it('shows the seed as filters, takes an edit, then pauses at the model and completes on approve', async () => {
    const created = await m.call('POST', '/v1/segments', {
      name: 'described',
      subtype: 'similarity',
      seed_description: 'homeowners in California',
      hitl: true,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ status: 'pending', seed_description: 'homeowners in California' });
    const id = created.body.workflow_run_id;
    let run = await m.waitRun(id, ['awaiting_review', 'failed']);
    expect(run).toMatchObject({ status: 'awaiting_review', open_gate_id: 'seed_interpretation', hitl: true });
    const gate = run.gates[0];
    expect(gate).toMatchObject({ gate_id: 'seed_interpretation', step: 'seed', status: 'open', response: null });
    expect(gate.shows.filter_groups[0].filters).toEqual([cond('homeowner', '=', true), cond('state', '=', 'CA')]);
    expect(gate.shows.unrecognized).toEqual([]);
    // The seed's size is what discovery answers for the same filters (the privacy layer's sticky noise).
    const described = { filters: [cond('homeowner', '=', true), cond('state', '=', 'CA')] };
    expect(gate.shows.seed_persons).toBe(await shownSet(described, await m.g.keys(`homeowner AND state = 'CA'`)));
    expect(gate.shows.seed_persons).toBe((await m.call('POST', '/v1/discovery/count', described)).body.count);
    expect(run.steps.map((s: any) => s.status)).toEqual(['completed', 'pending', 'pending']);

    // The answer must name the open gate; an edit applies only to the seed gate's response shape.
    expect((await resume(id, { gate_id: 'model_evaluation', response: 'approve' })).body).toMatchObject({
      error: 'GATE_NOT_OPEN',
      open_gate_id: 'seed_interpretation',
    });
    const badEdit = await resume(id, { gate_id: 'seed_interpretation', response: { action: 'edit', filters: [cond('nope', '=', 1)] } });
    expect(badEdit.status).toBe(400);
    expect(badEdit.body).toMatchObject({ error: 'INVALID_FILTER' });
    const tiny = await resume(id, {
      gate_id: 'seed_interpretation',
      response: { action: 'edit', filters: [cond('state', '=', 'CA'), cond('age', '=', 33)] },
    });
    expect(tiny.status).toBe(422);
    expect(tiny.body).toMatchObject({ error: 'AGGREGATION_FLOOR_NOT_MET' });
    expect((await m.workflow(id)).status).toBe('awaiting_review'); // nothing changed

    const edited = await resume(id, { gate_id: 'seed_interpretation', response: { action: 'edit', filters: [cond('state', '=', 'TX')] } });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    expect(edited.body.gates[0]).toMatchObject({ status: 'edited' });
    expect(edited.body.status).toBe('queued');
    run = await m.waitRun(id, ['awaiting_review', 'failed']);
    const TX = (await m.g.keys(`state = 'TX'`)).size;
    expect(run).toMatchObject({ status: 'awaiting_review', open_gate_id: 'model_evaluation' });
    expect(run.steps[0].metrics).toEqual({
      seed_persons: await shownSet({ filters: [cond('state', '=', 'TX')] }, await m.g.keys(`state = 'TX'`)),
    });
    expect(run.gates[1].shows.model_summary).toMatchObject({ record_count: await m.shownSize(id, lookalikeSize(TX)) });
    expect((await m.call('GET', `/v1/segments/${created.body.segment_id}`)).body.status).toBe('pending');
    expect(
      (await resume(id, { gate_id: 'model_evaluation', response: { action: 'edit', filters: [cond('state', '=', 'TX')] } })).body,
    ).toMatchObject({ error: 'INVALID_GATE_RESPONSE' });

    const approved = await resume(id, { gate_id: 'model_evaluation', response: 'approve' });
    expect(approved.status).toBe(200);
    run = await m.waitRun(id, ['completed', 'failed']);
    expect(run.status).toBe('completed');
    expect(run.gates.map((g: any) => [g.gate_id, g.status])).toEqual([
      ['seed_interpretation', 'edited'],
      ['model_evaluation', 'approved'],
    ]);
    const seg = await m.waitSegment(created.body.segment_id, ['active']);
    expect(seg.record_count).toBe(await m.shownSize(id, lookalikeSize(TX)));
    const again = await resume(id, { gate_id: 'model_evaluation', response: 'approve' });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: 'WORKFLOW_NOT_AWAITING_REVIEW' });
  }, 120_000);

  it('a description nothing can be read from is refused without review', async () => {
    const res = await m.call('POST', '/v1/segments', { name: 'x', subtype: 'similarity', seed_description: 'zorblax quuxers' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'INVALID_SEED_DESCRIPTION', unrecognized: ['zorblax', 'quuxers'] });
  });
});

describe('model evaluation gate rejected', () => {
  it('ends the run and fails the segment and its audience, with segment.failed', async () => {
    const positive = await m.filterSegment([cond('state', '=', 'FL')], 'FL');
    const created = await m.call('POST', '/v1/segments', {
      name: 'reviewed',
      subtype: 'propensity',
      positive_class_segment_id: positive,
      hitl: true,
      create_audience: true,
      model_type: 'LOGISTIC_REG',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.workflow_run_id;
    const run = await m.waitRun(id, ['awaiting_review', 'failed']);
    expect(run).toMatchObject({ open_gate_id: 'model_evaluation' }); // propensity has no seed gate
    expect(run.gates[0].shows.model_summary).toMatchObject({ model_type: 'LOGISTIC_REG', selected_model_type: 'LOGISTIC_REG' });
    const rejected = await resume(id, { gate_id: 'model_evaluation', response: 'reject' });
    expect(rejected.status).toBe(200);
    expect(rejected.body).toMatchObject({ status: 'failed', error_code: 'REJECTED_AT_REVIEW' });
    expect(rejected.body.gates[0]).toMatchObject({ status: 'rejected', response: 'reject' });
    const seg = (await m.call('GET', `/v1/segments/${created.body.segment_id}`)).body;
    expect(seg).toMatchObject({ status: 'failed', error_message: 'The build was rejected at the model_evaluation review gate.' });
    expect((await m.call('GET', `/v1/audiences/${created.body.audience_id}`)).body.status).toBe('failed');
    const events = await m.events(created.body.segment_id);
    expect(events.map((e) => e.type)).toEqual(['segment.failed']);
    expect(events[0]!.data).toMatchObject({
      status: 'failed',
      subtype: 'propensity',
      error_code: 'REJECTED_AT_REVIEW',
      workflow_run_id: id,
    });
    // A failed build can be relaunched.
    const again = await m.call('POST', `/v1/segments/${created.body.segment_id}/refresh`, {});
    expect(again.status).toBe(200);
    expect((await m.waitRun(again.body.workflow_run_id, ['completed', 'failed'])).status).toBe('completed');
    expect((await m.call('GET', `/v1/audiences/${created.body.audience_id}`)).body.status).toBe('active');
  }, 120_000);
});

describe('durability', () => {
  it('a worker that dies after training resumes from the last completed step', async () => {
    const seed = await m.filterSegment([cond('state', '=', 'NY')], 'NY');
    let crashes = 0;
    m.t.services.modelSegments.hooks.afterTrain = () => {
      if (crashes++ === 0) throw new Error('worker killed');
    };
    try {
      const created = await m.call('POST', '/v1/segments', { name: 'crash', subtype: 'similarity', seed_segment_id: seed });
      const run = await m.waitRun(created.body.workflow_run_id, ['completed', 'failed']);
      expect(run.status).toBe('completed');
      expect(run.attempts).toBe(2);
      // The retry did not train again: it went on from the persisted train_and_score step.
      expect(crashes).toBe(1);
      const NY = (await m.g.keys(`state = 'NY'`)).size;
      const size = await m.shownSize(created.body.workflow_run_id, lookalikeSize(NY));
      expect((await m.call('GET', `/v1/segments/${created.body.segment_id}`)).body).toMatchObject({ status: 'active', record_count: size });
      expect((await m.events(created.body.segment_id)).map((e) => e.type)).toEqual(['segment.ready']);
    } finally {
      delete m.t.services.modelSegments.hooks.afterTrain;
    }
  }, 120_000);

  it('a relaunch that cannot be enqueued answers WORKFLOW_LAUNCH_FAILED and changes nothing', async () => {
    const seed = await m.filterSegment([cond('state', '=', 'TX')], 'TX');
    const created = await m.call('POST', '/v1/segments', { name: 'relaunch', subtype: 'similarity', seed_segment_id: seed });
    await m.waitSegment(created.body.segment_id, ['active']);
    const before = (await m.call('GET', `/v1/segments/${created.body.segment_id}`)).body;
    m.t.services.modelSegments.hooks.beforeLaunch = () => {
      throw new Error('queue down');
    };
    try {
      const res = await m.call('POST', `/v1/segments/${created.body.segment_id}/refresh`, {});
      expect(res.status).toBe(502);
      expect(res.body).toMatchObject({ error: 'WORKFLOW_LAUNCH_FAILED', next_step: 'Retry the request in a few seconds.' });
      const failedCreate = await m.call('POST', '/v1/segments', { name: 'never', subtype: 'similarity', seed_segment_id: seed });
      expect(failedCreate.body.error).toBe('WORKFLOW_LAUNCH_FAILED');
    } finally {
      delete m.t.services.modelSegments.hooks.beforeLaunch;
    }
    const after = (await m.call('GET', `/v1/segments/${created.body.segment_id}`)).body;
    expect(after).toEqual(before);
    const list = (await m.call('GET', '/v1/segments?limit=100')).body.segments.map((s: any) => s.name);
    expect(list).not.toContain('never');
  }, 120_000);
});
