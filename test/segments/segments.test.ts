import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY, HOUR } from '../../src/lib/clock.ts';
import { sweepExpired } from '../../src/modules/segments/index.ts';
import { EXPIRY_SWEEP_JOB } from '../../src/modules/segments/index.ts';
import { testStores } from '../helpers/stores.ts';
import { createTestOrg } from '../helpers/app.ts';
import { near, shownSet } from '../helpers/privacy.ts';
import { cond, setup, type SegTest } from './setup.ts';

describe('filter segments: lifecycle and errors (spec 4.3, 3)', () => {
  let s: SegTest;
  /** record_count of a CA filter segment: the true count through the privacy layer (same question as the raw filters). */
  let ca: number;
  let caTrue: number;
  beforeAll(async () => {
    s = await setup();
    const caKeys = await s.g.keys(`state = 'CA'`);
    caTrue = caKeys.size;
    ca = (await shownSet({ filters: [cond('state', '=', 'CA')] }, caKeys))!;
  }, 300_000);
  afterAll(() => s.t.app.close());

  it('creates an active, counted filter segment with a wrapper audience', async () => {
    const seg = await s.segment({ name: 'California', filters: [cond('state', '=', 'CA')] });
    expect(seg).toMatchObject({
      subtype: 'filter',
      status: 'active',
      visibility: 'org',
      current_version: 1,
      record_count: ca,
      record_count_reason: null,
      record_limit: null,
      ephemeral: false,
      expires_at: '2026-05-30',
      data_release: { major: 1, minor: 0 },
      lineage: { parent_segment_id: null, root_segment_id: null, parent_version: null },
      filters: [{ field: 'state', op: '=', value: 'CA' }],
    });
    expect(seg.filter_groups).toHaveLength(1);
    expect(seg.audience_id).toMatch(/^aud_/);
    const aud = await s.call('GET', `/v1/audiences/${seg.audience_id}`);
    expect(aud.body).toMatchObject({ record_count: ca, segment_ids: [seg.segment_id], set_logic: 'union', snapshot_version: 1 });
    const got = await s.call('GET', `/v1/segments/${seg.segment_id}`);
    expect(got.body).toMatchObject({ audience_count: 1, campaign_count: 0 });
  });

  it('shows counts below the privacy floor as null with a reason', async () => {
    const small = (await s.g.keys(`city = 'BROOKLYN'`)).size;
    expect(small).toBeLessThan(50);
    const seg = await s.segment({ filters: [cond('city', '=', 'BROOKLYN')], create_audience: false });
    expect(seg).toMatchObject({ record_count: null, record_count_reason: 'below_privacy_floor' });
    expect(seg.audience_id).toBeUndefined();
  });

  it('rejects bad input with a clear error and creates nothing', async () => {
    const before = (await s.call('GET', '/v1/segments?limit=100')).body.count;
    const cases: [Record<string, unknown>, number, string][] = [
      [{ name: 'x', filters: [cond('no_such_field', '=', 1)] }, 400, 'INVALID_FILTER'],
      [{ name: 'x' }, 400, 'INVALID_FILTER'],
      [{ name: '', filters: [cond('state', '=', 'CA')] }, 400, 'INVALID_REQUEST'],
      [{ name: 'x'.repeat(121), filters: [cond('state', '=', 'CA')] }, 400, 'INVALID_REQUEST'],
      [{ name: 'x', subtype: 'matched', record_limit: 10 }, 400, 'RECORD_LIMIT_UNSUPPORTED'],
      [{ name: 'x', subtype: 'similarity', record_limit: 10, seed_description: 'a' }, 400, 'RECORD_LIMIT_UNSUPPORTED'],
      [{ name: 'x', subtype: 'propensity' }, 400, 'INVALID_REQUEST'], // no positive_class_segment_id (model-segments tests the rest)
      [{ name: 'x', filters: [cond('state', '=', 'CA')], campaign_id: 'cmp_nope' }, 400, 'INVALID_CAMPAIGN_ID'],
      [{ name: 'x', filters: [cond('state', '=', 'CA')], record_limit: 0 }, 400, 'INVALID_REQUEST'],
      [{ name: 'x', filters: [cond('state', '=', 'CA')], record_limit: 1_000_000_001 }, 400, 'INVALID_REQUEST'],
      [{ name: 'x', filters: [cond('gender', '=', 'F')], record_limit: 10 }, 400, 'CAP_GEOGRAPHY_REQUIRED'],
      // Second OR branch has no geography.
      [
        {
          name: 'x',
          filter_groups: [
            { id: 'a', combinator: 'AND', filters: [cond('state', '=', 'CA')] },
            { id: 'b', combinator: 'OR', filters: [cond('gender', '=', 'F')] },
          ],
          record_limit: 10,
        },
        400,
        'CAP_GEOGRAPHY_REQUIRED',
      ],
      // Too many ZIP3 regions (CA, TX, NY, FL together are well over 100).
      [{ name: 'x', filters: [cond('state', 'IN', ['CA', 'TX', 'NY', 'FL'])], record_limit: 10 }, 400, 'CAP_GEOGRAPHY_REQUIRED'],
    ];
    for (const [body, status, code] of cases) {
      const res = await s.call('POST', '/v1/segments', body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.body.error, JSON.stringify(body)).toBe(code);
      expect(res.body.request_id).toBeTruthy();
    }
    const invalid = await s.call('POST', '/v1/segments', { name: 'x', filters: [cond('no_such_field', '=', 1)] });
    expect(invalid.body.issues[0]).toMatchObject({ code: 'UNKNOWN_FILTER_FIELD' });
    expect((await s.call('GET', '/v1/segments?limit=100')).body.count).toBe(before);
  });

  it('answers 502 FILTER_CATALOG_UNAVAILABLE when the catalog cannot be read, creating nothing', async () => {
    const before = (await s.call('GET', '/v1/segments?limit=100')).body.count;
    s.t.services.segmentsModule.faults.catalog = async () => {
      throw new Error('down');
    };
    try {
      const res = await s.call('POST', '/v1/segments', { name: 'x', filters: [cond('state', '=', 'CA')] });
      expect(res.status).toBe(502);
      expect(res.body.error).toBe('FILTER_CATALOG_UNAVAILABLE');
    } finally {
      delete s.t.services.segmentsModule.faults.catalog;
      delete s.t.services.segmentsModule.faults.count;
    }
    expect((await s.call('GET', '/v1/segments?limit=100')).body.count).toBe(before);
  });

  it('requires the creator scope for writes and discovery for reads', async () => {
    const reader = await s.org.token(['discovery']);
    const res = await s.call('POST', '/v1/segments', { name: 'x', filters: [cond('state', '=', 'CA')] }, reader);
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('SCOPE_REQUIRED');
    expect((await s.call('GET', '/v1/segments', undefined, reader)).status).toBe(200);
  });

  it('caps membership to a stable subset inherited by audiences', async () => {
    const capped = await s.segment({ filters: [cond('state', '=', 'CA')], record_limit: 200, create_audience: true });
    expect(capped).toMatchObject({ record_count: near(200), record_limit: 200 });
    const whole = await s.segment({ filters: [cond('state', '=', 'CA')], create_audience: false });
    const women = await s.segment({ filters: [cond('gender', '=', 'F')], create_audience: false });
    const compose = async (body: Record<string, unknown>) =>
      (await s.call('POST', '/v1/audiences', { name: 'c', ...body })).body.record_count;
    // The subset lies inside the uncapped membership, and the same subset is used every time.
    expect(await compose({ segment_ids: [capped.segment_id, whole.segment_id], set_logic: 'union' })).toEqual(near(caTrue));
    expect(await compose({ segment_ids: [capped.segment_id, whole.segment_id], set_logic: 'intersection' })).toEqual(near(200));
    const minusWomen = await compose({ segment_ids: [capped.segment_id], excluded_segment_ids: [women.segment_id] });
    const withWomen = await compose({ segment_ids: [capped.segment_id, women.segment_id], set_logic: 'intersection' });
    // Both parts stay above the privacy floor; each is noised on its own, so the split adds up to 200 within the noise only.
    expect(minusWomen + withWomen).toEqual(near(200, 40));
    const again = await s.call('POST', `/v1/audiences/${capped.audience_id}/count`);
    expect(again.body.record_count).toBe(capped.record_count);
    expect(await compose({ segment_ids: [capped.segment_id], excluded_segment_ids: [women.segment_id] })).toBe(minusWomen);
  });

  it('walks the status table: archive, reactivate, refresh, expiry', async () => {
    const seg = await s.segment({ filters: [cond('state', '=', 'TX')] });
    const id = seg.segment_id;
    const patch = (body: unknown) => s.call('PATCH', `/v1/segments/${id}`, body);
    expect((await patch({ status: 'archived' })).body.status).toBe('archived');
    const refused = await s.call('POST', `/v1/segments/${id}/refresh`, {});
    expect(refused).toMatchObject({ status: 409, body: { error: 'SEGMENT_ARCHIVED' } });
    // Archived: hidden from the default list and from new compositions, still in existing audiences.
    expect((await s.call('GET', '/v1/segments?limit=100')).body.segments.map((x: any) => x.segment_id)).not.toContain(id);
    expect((await s.call('GET', '/v1/segments?limit=100&include_archived=true')).body.segments.map((x: any) => x.segment_id)).toContain(id);
    expect((await s.call('POST', '/v1/audiences', { name: 'a', segment_ids: [id] })).body.error).toBe('SEGMENT_ARCHIVED');
    expect((await s.call('GET', `/v1/audiences/${seg.audience_id}`)).body.segment_ids).toEqual([id]);
    expect((await patch({ status: 'active', name: 'Texas' })).body).toMatchObject({ status: 'active', name: 'Texas' });

    // Refresh: nothing changed -> no-op; force -> new version, TTL reset, audiences listed.
    const noop = await s.call('POST', `/v1/segments/${id}/refresh`, {});
    expect(noop.body).toMatchObject({ refreshed: false, current_version: 1, affected_audiences: [seg.audience_id] });
    s.clock.advance(10 * DAY);
    const forced = await s.call('POST', `/v1/segments/${id}/refresh`, { force: true });
    expect(forced.body).toMatchObject({
      refreshed: true,
      current_version: 2,
      expires_at: '2026-06-09',
      affected_audiences: [seg.audience_id],
    });
    // Spec 3: the refresh clears record_count; the new version's count lands through the recount job.
    expect(forced.body).toMatchObject({ record_count: null, record_count_reason: 'counting' });
    expect(typeof forced.body.next_step).toBe('string');
    const recount = s.t.services.segmentsModule.jobDefinitions().find((d) => d.name === 'recount')!;
    await recount.handle({ orgId: s.org.orgId, kind: 'segment', id, version: 2 }, { id: 'job', retryCount: 0 });
    expect((await s.call('GET', `/v1/segments/${id}`)).body).toMatchObject({
      current_version: 2,
      record_count: await shownSet({ filters: [cond('state', '=', 'TX')] }, await s.g.keys(`state = 'TX'`)),
      record_count_reason: null,
    });

    // Filters edit bumps the version and recounts.
    const edited = await patch({ filters: [cond('state', '=', 'NY')] });
    expect(edited.body).toMatchObject({
      current_version: 3,
      record_count: await shownSet({ filters: [cond('state', '=', 'NY')] }, await s.g.keys(`state = 'NY'`)),
    });

    // TTL: the sweep expires segment and audience; reactivating by PATCH is refused, refresh renews.
    s.clock.advance(91 * DAY);
    const { database } = await testStores();
    const swept = await sweepExpired(database.db, s.clock);
    expect(swept.segments).toBeGreaterThan(0);
    expect((await s.call('GET', `/v1/segments/${id}`)).body.status).toBe('expired');
    expect((await s.call('GET', `/v1/audiences/${seg.audience_id}`)).body.status).toBe('expired');
    const bad = await patch({ status: 'active' });
    expect(bad).toMatchObject({ status: 409, body: { error: 'INVALID_STATUS_TRANSITION' } });
    expect((await patch({ status: 'archived' })).body.status).toBe('archived');
    expect((await patch({ status: 'active' })).body.error).toBe('INVALID_STATUS_TRANSITION');
    s.clock.advance(-101 * DAY);
  });

  it('renews an expired segment by refresh', async () => {
    const seg = await s.segment({ filters: [cond('state', '=', 'FL')], create_audience: false });
    s.clock.advance(90 * DAY);
    const { database } = await testStores();
    await sweepExpired(database.db, s.clock);
    const r = await s.call('POST', `/v1/segments/${seg.segment_id}/refresh`, {});
    expect(r.body).toMatchObject({ refreshed: true, status: 'active', current_version: 2 });
    s.clock.advance(-90 * DAY);
  });

  it('gives ephemeral segments a full-datetime, hour-granular expiry', async () => {
    const seg = await s.segment({ filters: [cond('state', '=', 'CA')], ephemeral: true, ttl_hours: 2 });
    expect(seg.ephemeral).toBe(true);
    expect(seg.audience_id).toBeUndefined();
    expect(seg.expires_at).toBe(new Date(Date.parse('2026-03-01T12:00:00Z') + 2 * HOUR).toISOString());
  });

  it('deletes with confirm_impact; deleted segments vanish everywhere', async () => {
    const a = await s.segment({ filters: [cond('state', '=', 'CA')] });
    const b = await s.segment({ filters: [cond('gender', '=', 'M')], create_audience: false });
    const aud = (await s.call('POST', '/v1/audiences', { name: 'two', segment_ids: [a.segment_id], excluded_segment_ids: [b.segment_id] }))
      .body;
    const blocked = await s.call('DELETE', `/v1/segments/${b.segment_id}`);
    expect(blocked).toMatchObject({ status: 409, body: { error: 'SEGMENT_IN_USE', audience_count: 1, campaign_count: 0 } });
    expect(blocked.body.audiences[0].audience_id).toBe(aud.audience_id);
    expect((await s.call('DELETE', `/v1/segments/${b.segment_id}?confirm_impact=true`)).status).toBe(204);
    expect((await s.call('GET', `/v1/segments/${b.segment_id}`)).status).toBe(404);
    expect((await s.call('DELETE', `/v1/segments/${b.segment_id}?confirm_impact=true`)).status).toBe(404);
    const after = (await s.call('POST', `/v1/audiences/${aud.audience_id}/count`)).body;
    expect(after.excluded_segment_ids).toEqual([b.segment_id]);
    expect(after.excluded_segments).toEqual([]);
    // The deleted exclusion no longer subtracts: the composition is CA alone (its own question, so near, not equal).
    expect(after.record_count).toEqual(near(caTrue));
    // Not in use: deletes straight away.
    const c = await s.segment({ filters: [cond('state', '=', 'CA')], create_audience: false });
    expect((await s.call('DELETE', `/v1/segments/${c.segment_id}`)).status).toBe(204);
  });

  it('duplicates with lineage to parent, root and pinned version', async () => {
    const root = await s.segment({ filters: [cond('state', '=', 'CA')], create_audience: false });
    await s.call('POST', `/v1/segments/${root.segment_id}/refresh`, { force: true });
    const child = (await s.call('POST', `/v1/segments/${root.segment_id}/duplicate`, {})).body;
    expect(child).toMatchObject({
      name: 'seg (copy)',
      current_version: 1,
      record_count: ca,
      shared_source_data: false,
      lineage: { parent_segment_id: root.segment_id, root_segment_id: root.segment_id, parent_version: 2 },
    });
    const grandchild = (await s.call('POST', `/v1/segments/${child.segment_id}/duplicate`, { name: 'g', create_audience: true })).body;
    expect(grandchild.lineage).toEqual({ parent_segment_id: child.segment_id, root_segment_id: root.segment_id, parent_version: 1 });
    expect(grandchild.audience_id).toMatch(/^aud_/);
  });

  it('hides private segments from everyone but their creator, and other organizations see nothing', async () => {
    const priv = await s.segment({ filters: [cond('state', '=', 'CA')], visibility: 'private' });
    const colleague = await s.org.token(undefined, await s.org.addUser('member'));
    expect((await s.call('GET', `/v1/segments/${priv.segment_id}`, undefined, colleague)).status).toBe(404);
    expect((await s.call('PATCH', `/v1/segments/${priv.segment_id}`, { name: 'n' }, colleague)).status).toBe(404);
    expect((await s.call('GET', '/v1/segments?limit=100', undefined, colleague)).body.segments.map((x: any) => x.segment_id)).not.toContain(
      priv.segment_id,
    );
    expect((await s.call('POST', '/v1/audiences', { name: 'x', segment_ids: [priv.segment_id] }, colleague)).body.error).toBe(
      'SEGMENT_NOT_FOUND',
    );
    expect((await s.call('GET', `/v1/segments/${priv.segment_id}`)).status).toBe(200);

    const other = await createTestOrg(s.t);
    const otherToken = await other.token();
    for (const [m, url] of [
      ['GET', `/v1/segments/${priv.segment_id}`],
      ['PATCH', `/v1/segments/${priv.segment_id}`],
      ['DELETE', `/v1/segments/${priv.segment_id}`],
      ['POST', `/v1/segments/${priv.segment_id}/refresh`],
      ['GET', `/v1/audiences/${priv.audience_id}`],
    ] as const) {
      const res = await s.call(m, url, m === 'PATCH' ? { name: 'n' } : m === 'POST' ? {} : undefined, otherToken);
      expect(res.status, `${m} ${url}`).toBe(404);
    }
  });

  it('pages segments newest first, skipping deleted rows and archived unless asked', async () => {
    const org = await createTestOrg(s.t);
    const tok = await org.token();
    const made: string[] = [];
    for (let i = 0; i < 6; i++) {
      s.clock.advance(1000);
      made.push(
        (await s.call('POST', '/v1/segments', { name: `p${i}`, filters: [cond('state', '=', 'CA')], create_audience: false }, tok)).body
          .segment_id,
      );
    }
    await s.call('PATCH', `/v1/segments/${made[1]}`, { status: 'archived' }, tok);
    await s.call('DELETE', `/v1/segments/${made[4]}`, undefined, tok);
    const walk = async (q: string) => {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: any = (await s.call('GET', `/v1/segments?limit=2${q}${cursor ? `&cursor=${cursor}` : ''}`, undefined, tok)).body;
        seen.push(...page.segments.map((x: any) => x.segment_id));
        cursor = page.next_cursor;
      } while (cursor);
      return seen;
    };
    expect(await walk('')).toEqual([made[5], made[3], made[2], made[0]]);
    expect(await walk('&include_archived=true')).toEqual([made[5], made[3], made[2], made[1], made[0]]);
    const page = (await s.call('GET', '/v1/segments?limit=2', undefined, tok)).body;
    expect((await s.call('GET', `/v1/audiences?cursor=${page.next_cursor}`, undefined, tok)).body.error).toBe('INVALID_CURSOR');
    s.clock.advance(-6000);
  });

  it('registers the periodic expiry sweep with the job queue', async () => {
    const { queue } = await testStores();
    const schedules = await queue.boss.getSchedules();
    expect(schedules.map((x: { name: string }) => x.name)).toContain(EXPIRY_SWEEP_JOB);
  });
});
