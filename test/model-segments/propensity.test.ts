/**
 * Propensity segments over HTTP (spec 2, 3, 4.3, 4.4): positive class, model types, excluded
 * columns, legacy segments attached without a positive class (422 MISSING_POSITIVE_CLASS_ID on
 * refresh), audience refresh of a model-built member, a positive class that is the customer's matched
 * list (its persons are never members: decision 051), bad input (nothing created), organization
 * isolation and scopes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestOrg } from '../helpers/app.ts';
import { shownSet } from '../helpers/privacy.ts';
import { testStores } from '../helpers/stores.ts';
import { PERSONS } from '../segments/graph.ts';
import { cond, setup, type ModelTest } from './setup.ts';

let m: ModelTest;
let positiveId: string;
let FL: number;
let prop: any;
let run: any;
/** decision 024: ten times the positive class, at most a quarter of the graph (the class stays eligible). */
const propensitySize = (positives: number) => Math.min(10 * positives, Math.floor(PERSONS / 4));

beforeAll(async () => {
  m = await setup();
  FL = (await m.g.keys(`state = 'FL'`)).size;
  positiveId = await m.filterSegment([cond('state', '=', 'FL')], 'FL buyers');
  const res = await m.call('POST', '/v1/segments', {
    name: 'FL propensity',
    subtype: 'propensity',
    positive_class_segment_id: positiveId,
    model_type: 'AUTOML_CLASSIFIER',
    excluded_columns: ',age,INCOME_BAND',
    model_name: 'fl-v1',
    create_audience: true,
  });
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  prop = res.body;
  run = await m.waitRun(prop.workflow_run_id, ['completed', 'failed'], 120_000);
}, 240_000);
afterAll(async () => {
  await m?.stopWorker();
  await m?.t.app.close();
});

describe('propensity build', () => {
  it('trains on the positive class without the excluded columns and publishes the top-scored persons', async () => {
    expect(prop).toMatchObject({ subtype: 'propensity', status: 'pending', positive_class_segment_id: positiveId });
    expect(prop.audience_id).toMatch(/^aud_/);
    expect(run.status, JSON.stringify(run).slice(0, 1000)).toBe('completed');
    const classShown = await shownSet({ filters: [cond('state', '=', 'FL')] }, await m.g.keys(`state = 'FL'`));
    expect(run.steps[0]).toMatchObject({ name: 'positive_class', status: 'completed', metrics: { positive_class_persons: classShown } });
    expect(run.metrics).toMatchObject({
      purpose: 'propensity',
      model_type: 'AUTOML_CLASSIFIER',
      model_name: 'fl-v1',
      labelled_persons: classShown,
    });
    expect(run.metrics.training.excluded_columns).toEqual(['age', 'income_band']);
    // AUTOML trains several candidates and keeps the best by validation AUC.
    expect(run.metrics.candidates.length).toBeGreaterThan(1);
    const used = new Set([...run.metrics.field_importance.map((f: any) => f.field), ...run.metrics.features.map((f: any) => f.field)]);
    expect(used.has('age')).toBe(false);
    expect(used.has('income_band')).toBe(false);
    const size = await m.shownSize(prop.workflow_run_id, propensitySize(FL));
    expect(run.record_count).toBe(size);
    const seg = (await m.call('GET', `/v1/segments/${prop.segment_id}`)).body;
    expect(seg).toMatchObject({ status: 'active', record_count: size, audience_count: 1 });
    const aud = (await m.call('GET', `/v1/audiences/${prop.audience_id}`)).body;
    expect(aud).toMatchObject({ status: 'active', record_count: size });
    const ready = (await m.events(prop.segment_id)).find((e) => e.type === 'segment.ready')!;
    expect(ready.data).toMatchObject({ subtype: 'propensity', audience_id: prop.audience_id, record_count: size });
    expect(ready.data.model_summary).toMatchObject({ model_type: 'AUTOML_CLASSIFIER', record_count: size });
  });

  it('audience refresh of the member relaunches it: audience pending with the new workflow_run_id, then active', async () => {
    const res = await m.call('POST', `/v1/audiences/${prop.audience_id}/refresh`, { segment_id: prop.segment_id });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ status: 'pending', subtype: 'propensity', segment_id: prop.segment_id });
    expect(res.body.workflow_run_id).toMatch(/^wfr_/);
    expect(res.body.workflow_run_id).not.toBe(prop.workflow_run_id);
    expect((await m.call('GET', `/v1/audiences/${prop.audience_id}`)).body.status).toBe('pending');
    // The replaced run is cancelled when still going, or stays completed.
    expect(['completed', 'cancelled']).toContain((await m.workflow(prop.workflow_run_id)).status);
    await m.waitRun(res.body.workflow_run_id, ['completed', 'failed'], 120_000);
    expect((await m.call('GET', `/v1/audiences/${prop.audience_id}`)).body.status).toBe('active');
    run = await m.workflow(res.body.workflow_run_id);
  }, 150_000);

  it('a legacy segment (attached without a positive class) refuses refresh with 422 MISSING_POSITIVE_CLASS_ID', async () => {
    const legacy = await m.call('POST', '/v1/segments', {
      name: 'legacy',
      subtype: 'propensity',
      generation_metadata_id: run.workflow_run_id,
    });
    expect(legacy.status, JSON.stringify(legacy.body)).toBe(201);
    expect(legacy.body).toMatchObject({
      status: 'active',
      record_count: await m.shownSize(run.workflow_run_id, propensitySize(FL)),
      workflow_run_id: run.workflow_run_id,
    });
    expect(legacy.body.positive_class_segment_id).toBeUndefined();
    const refresh = await m.call('POST', `/v1/segments/${legacy.body.segment_id}/refresh`, {});
    expect(refresh.status).toBe(422);
    expect(refresh.body).toMatchObject({ error: 'MISSING_POSITIVE_CLASS_ID' });
    expect(refresh.body.next_step).toBeTruthy();
    expect((await m.call('GET', `/v1/segments/${legacy.body.segment_id}`)).body.status).toBe('active');
    // Attached with its positive class it can be rebuilt.
    const kept = await m.call('POST', '/v1/segments', {
      name: 'kept',
      subtype: 'propensity',
      generation_metadata_id: run.workflow_run_id,
      positive_class_segment_id: positiveId,
    });
    expect(kept.body.positive_class_segment_id).toBe(positiveId);
    const again = await m.call('POST', `/v1/segments/${kept.body.segment_id}/refresh`, {});
    expect(again.status).toBe(200);
    await m.waitRun(again.body.workflow_run_id, ['completed', 'failed'], 120_000);
  }, 150_000);
});

describe("a positive class that is the customer's matched list (issue #31, decision 051)", () => {
  it(
    "leaves the list's persons out of the segment: made-up names at real addresses never come back as members",
    { timeout: 200_000 },
    async () => {
      // A list of made-up names at real addresses: each row matches at A (or S), the resident of the address.
      const addresses = (
        await m.g.conn.runAndReadAll(`SELECT address_1, city, state, zip5 FROM graph.persons WHERE address_2 IS NULL
      QUALIFY row_number() OVER (PARTITION BY address_1, zip5 ORDER BY person_key) = 1 ORDER BY person_key LIMIT 100`)
      ).getRowObjectsJS();
      const records = addresses.map((a, i) => ({
        row_id: `r${i}`,
        first_name: 'Zyxw',
        last_name: `Madeup${i}`,
        address_1: a.address_1,
        city: a.city,
        state: a.state,
        zip: a.zip5,
      }));
      const matched = await m.call('POST', '/v1/match', { records, create_scratch_segment: true, field_list: ['zip5'] });
      expect(matched.status, JSON.stringify(matched.body).slice(0, 500)).toBe(200);
      expect(matched.body.records.every((r: any) => r.match_level === null || ['A', 'S'].includes(r.match_level))).toBe(true);
      const listId = matched.body.scratch_segment.segment_id as string;
      const { database } = await testStores();
      const list = await database.db.selectFrom('segments').select('members_path').where('id', '=', listId).executeTakeFirstOrThrow();
      const listed = new Set(
        (await m.g.conn.runAndReadAll(`SELECT person_key FROM read_parquet('${list.members_path}')`))
          .getRowsJS()
          .map((r) => BigInt(r[0] as bigint)),
      );
      expect(listed.size).toBeGreaterThanOrEqual(60);

      const res = await m.call('POST', '/v1/segments', {
        name: 'list propensity',
        subtype: 'propensity',
        positive_class_segment_id: listId,
        target_size: 1000,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      const built = await m.waitRun(res.body.workflow_run_id, ['completed', 'failed'], 150_000);
      expect(built.status, JSON.stringify(built).slice(0, 1000)).toBe('completed');
      const members = await m.runMembers(res.body.workflow_run_id);
      expect(members.length).toBeGreaterThan(0);
      expect(
        members.filter((k) => listed.has(k)),
        "persons of the customer's list among the propensity segment's members",
      ).toEqual([]);
    },
  );
});

describe('bad input changes nothing', () => {
  it('answers each with the error envelope', async () => {
    const small = await m.filterSegment([cond('state', '=', 'FL'), cond('age', '=', 33)], 'tiny');
    const pendingSeed = await m.call('POST', '/v1/segments', {
      name: 'paused',
      subtype: 'similarity',
      seed_description: 'homeowners',
      hitl: true,
    });
    const before = (await m.call('GET', '/v1/segments?limit=100')).body.segments.length;
    const cases: [Record<string, unknown>, number, string][] = [
      [{ subtype: 'propensity' }, 400, 'INVALID_REQUEST'],
      [{ subtype: 'similarity' }, 400, 'INVALID_REQUEST'],
      [{ subtype: 'similarity', seed_segment_id: positiveId, seed_description: 'golfers' }, 400, 'INVALID_REQUEST'],
      [{ subtype: 'similarity', seed_segment_id: positiveId, positive_class_segment_id: positiveId }, 400, 'INVALID_REQUEST'],
      [{ subtype: 'propensity', positive_class_segment_id: positiveId, seed_description: 'golfers' }, 400, 'INVALID_REQUEST'],
      [{ subtype: 'propensity', positive_class_segment_id: positiveId, record_limit: 100 }, 400, 'RECORD_LIMIT_UNSUPPORTED'],
      [{ subtype: 'propensity', positive_class_segment_id: positiveId, model_type: 'RANDOM_FOREST' }, 400, 'INVALID_REQUEST'],
      [{ subtype: 'propensity', positive_class_segment_id: positiveId, target_size: 10 }, 400, 'INVALID_REQUEST'],
      [
        { subtype: 'propensity', positive_class_segment_id: positiveId, excluded_columns: ',age,shoe_size' },
        400,
        'INVALID_EXCLUDED_COLUMNS',
      ],
      [{ subtype: 'propensity', positive_class_segment_id: 'seg_nope' }, 404, 'SEGMENT_NOT_FOUND'],
      [{ subtype: 'propensity', positive_class_segment_id: small }, 422, 'AGGREGATION_FLOOR_NOT_MET'],
      [{ subtype: 'similarity', seed_segment_id: pendingSeed.body.segment_id }, 409, 'SEED_SEGMENT_NOT_READY'],
      [{ subtype: 'similarity', seed_description: 'golfers aged 33 in Florida' }, 422, 'AGGREGATION_FLOOR_NOT_MET'],
      [{ subtype: 'similarity', generation_metadata_id: 'wfr_nope' }, 400, 'GENERATION_METADATA_NOT_FOUND'],
      [{ subtype: 'similarity', generation_metadata_id: run.workflow_run_id }, 400, 'GENERATION_METADATA_NOT_FOUND'], // a propensity run
      [{ subtype: 'propensity', generation_metadata_id: run.workflow_run_id, model_type: 'LOGISTIC_REG' }, 400, 'INVALID_REQUEST'],
      [{ subtype: 'propensity', positive_class_segment_id: positiveId, campaign_id: 'cmp_nope' }, 400, 'INVALID_CAMPAIGN_ID'],
    ];
    for (const [body, status, error] of cases) {
      const res = await m.call('POST', '/v1/segments', { name: 'bad', ...body });
      expect(res.status, JSON.stringify([body, res.body])).toBe(status);
      expect(res.body.error, JSON.stringify(body)).toBe(error);
      expect(typeof res.body.message).toBe('string');
      expect(res.body.request_id).toBeTruthy();
    }
    const unknown = await m.call('POST', '/v1/segments', {
      name: 'bad',
      subtype: 'propensity',
      positive_class_segment_id: positiveId,
      excluded_columns: ',shoe_size',
    });
    expect(unknown.body.issues[0]).toMatchObject({ path: '$.excluded_columns', code: 'UNKNOWN_FILTER_FIELD' });
    expect((await m.call('GET', '/v1/segments?limit=100')).body.segments.length).toBe(before);
    const badResume = await m.call('POST', `/v1/workflows/${pendingSeed.body.workflow_run_id}/resume`, {
      gate_id: 'seed_interpretation',
      response: 'maybe',
    });
    expect(badResume.status).toBe(400);
    expect(badResume.body.error).toBe('INVALID_REQUEST');
  });
});

describe('organizations and scopes', () => {
  it('another organization sees neither the runs nor the segments to learn from', async () => {
    const other = await createTestOrg(m.t);
    const token = await other.token();
    const get = await m.call('GET', `/v1/workflows/${run.workflow_run_id}`, undefined, token);
    expect(get.status).toBe(404);
    expect(get.body.error).toBe('WORKFLOW_NOT_FOUND');
    const resume = await m.call(
      'POST',
      `/v1/workflows/${run.workflow_run_id}/resume`,
      { gate_id: 'model_evaluation', response: 'reject' },
      token,
    );
    expect(resume.status).toBe(404);
    const seeded = await m.call('POST', '/v1/segments', { name: 'x', subtype: 'similarity', seed_segment_id: positiveId }, token);
    expect(seeded.status).toBe(404);
    expect(seeded.body.error).toBe('SEGMENT_NOT_FOUND');
    const attach = await m.call(
      'POST',
      '/v1/segments',
      { name: 'x', subtype: 'propensity', generation_metadata_id: run.workflow_run_id },
      token,
    );
    expect(attach.body.error).toBe('GENERATION_METADATA_NOT_FOUND');
    expect((await m.workflow(run.workflow_run_id)).status).toBe('completed');
  });

  it('reading a run needs discovery; answering a gate needs creator', async () => {
    const reader = await m.org.token(['discovery']);
    expect((await m.call('GET', `/v1/workflows/${run.workflow_run_id}`, undefined, reader)).status).toBe(200);
    const denied = await m.call(
      'POST',
      `/v1/workflows/${run.workflow_run_id}/resume`,
      { gate_id: 'model_evaluation', response: 'approve' },
      reader,
    );
    expect(denied.status).toBe(403);
    expect(denied.body.error).toBe('SCOPE_REQUIRED');
  });
});
