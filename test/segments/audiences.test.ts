import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY } from '../../src/lib/clock.ts';
import { sweepExpired } from '../../src/modules/segments/index.ts';
import { testStores } from '../helpers/stores.ts';
import { createTestOrg } from '../helpers/app.ts';
import { near, shownSet } from '../helpers/privacy.ts';
import { cond, setup, type SegTest } from './setup.ts';

const inter = <T>(a: Set<T>, b: Set<T>) => new Set([...a].filter((x) => b.has(x)));
const minus = <T>(a: Set<T>, b: Set<T>) => new Set([...a].filter((x) => !b.has(x)));
const union = <T>(...s: Set<T>[]) => new Set(s.flatMap((x) => [...x]));

describe('audiences, compositions and campaigns (spec 4.4, 4.6, 3)', () => {
  let s: SegTest;
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    s = await setup();
    for (const [k, f] of Object.entries({
      A: cond('state', 'IN', ['CA', 'TX', 'NY']),
      B: cond('age', '>=', 50),
      C: cond('homeowner', '=', true),
      D: cond('gender', '=', 'F'),
    })) {
      ids[k] = (await s.segment({ name: k, filters: [f], create_audience: false })).segment_id;
    }
  }, 300_000);
  afterAll(() => s.t.app.close());

  it('counts union, intersection and exclusion as computed independently', async () => {
    const A = await s.g.keys(`state IN ('CA','TX','NY')`);
    const B = await s.g.keys('age >= 50');
    const C = await s.g.keys('homeowner');
    const D = await s.g.keys(`gender = 'F'`);
    const u = await s.call('POST', '/v1/audiences', { name: 'u', segment_ids: [ids.A, ids.B, ids.C], excluded_segment_ids: [ids.D] });
    expect(u.status).toBe(201);
    expect(u.body.record_count).toEqual(near(minus(union(A, B, C), D).size));
    const i = await s.call('POST', '/v1/audiences', {
      name: 'i',
      segment_ids: [ids.A, ids.B],
      set_logic: 'intersection',
      excluded_segment_ids: [ids.D],
    });
    expect(i.body.record_count).toEqual(near(minus(inter(A, B), D).size));
    expect(i.body).toMatchObject({
      set_logic: 'intersection',
      snapshot_version: 1,
      campaign_id: null,
      data_release: { major: 1, minor: 0 },
      segment_refs: [
        { segment_id: ids.A, role: 'include' },
        { segment_id: ids.B, role: 'include' },
        { segment_id: ids.D, role: 'exclude' },
      ],
      parent_audience_id: null,
      last_delivery_quote_id: null,
      expires_at: '2026-05-30',
    });
    expect(i.body.segments.map((x: any) => x.name)).toEqual(['A', 'B']);
    expect(i.body.excluded_segments[0]).toMatchObject({ id: ids.D, subtype: 'filter', current_version: 1, record_limit: null });
    expect(i.body.excluded_segments[0]).not.toHaveProperty('segment_id');
    expect(i.body.matched_record_count).toBeUndefined();
    // Discovery's resolver port sees the same composition.
    const comp = await s.t.services.segmentsModule.api.resolveSegmentInput(
      { orgId: s.org.orgId, userId: s.org.ownerId },
      {
        kind: 'segments',
        segmentIds: [ids.A, ids.B],
        setLogic: 'intersection',
        excludedSegmentIds: [ids.D],
      },
    );
    expect((await s.g.ports.count({ kind: 'composition', composition: comp })).total).toBe(minus(inter(A, B), D).size);
    await expect(
      s.t.services.segmentsModule.api.resolveSegmentInput(
        { orgId: s.org.orgId, userId: s.org.ownerId },
        { kind: 'audience', audienceId: 'aud_nope' },
      ),
    ).rejects.toMatchObject({ code: 'AUDIENCE_NOT_FOUND' });
    // And over HTTP: discovery counts saved segments and audiences.
    const viaDiscovery = await s.call('POST', '/v1/discovery/count', {
      segment_ids: [ids.A, ids.B],
      set_logic: 'intersection',
      excluded_segment_ids: [ids.D],
    });
    expect(viaDiscovery.status, JSON.stringify(viaDiscovery.body)).toBe(200);
    // The same question gets the same answer in discovery as in the audience's stored record_count.
    expect(viaDiscovery.body.count).toBe(i.body.record_count);
    const byAudience = await s.call('POST', '/v1/discovery/count', { audience_id: u.body.audience_id });
    expect(byAudience.body.count).toBe(u.body.record_count);
  });

  it('refuses bad compositions and changes nothing', async () => {
    const cases: [Record<string, unknown>, number, string][] = [
      [{ name: 'x' }, 400, 'MISSING_SEGMENTS'],
      [{ name: 'x', excluded_segment_ids: [ids.D] }, 400, 'MISSING_SEGMENTS'],
      [{ name: 'x', segment_ids: ['seg_missing'] }, 404, 'SEGMENT_NOT_FOUND'],
      [{ name: 'x', segment_ids: [ids.A], campaign_id: 'cmp_nope' }, 400, 'INVALID_CAMPAIGN_ID'],
      [{ name: 'x', segment_ids: [ids.A], excluded_segment_ids: [ids.A] }, 400, 'INVALID_REQUEST'],
      [{ name: 'x', segment_ids: [ids.A], set_logic: 'xor' }, 400, 'INVALID_REQUEST'],
    ];
    const before = (await s.call('GET', '/v1/audiences?limit=100')).body.count;
    for (const [body, status, code] of cases) {
      const res = await s.call('POST', '/v1/audiences', body);
      expect([res.status, res.body.error], JSON.stringify(body)).toEqual([status, code]);
    }
    expect((await s.call('GET', '/v1/audiences?limit=100')).body.count).toBe(before);
  });

  it('bulk-creates up to 25, reporting items with missing segments', async () => {
    const res = await s.call('POST', '/v1/audiences/bulk-create', {
      audiences: [
        { name: 'one', segment_ids: [ids.A] },
        {
          name: 'refs win',
          segment_ids: ['seg_ignored'],
          segment_refs: [
            { segment_id: ids.B, role: 'include' },
            { segment_id: ids.D, role: 'exclude' },
          ],
        },
        { name: 'missing', segment_ids: [ids.A, 'seg_gone'] },
        { name: 'given', segment_ids: [ids.A, ids.C], record_count: 1234 },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.audiences.map((a: any) => a.name)).toEqual(['one', 'refs win', 'given']);
    // One included segment: its own stored count, the same question as its raw filters.
    expect(res.body.audiences[0].record_count).toBe(
      await shownSet({ filters: [cond('state', 'IN', ['CA', 'TX', 'NY'])] }, await s.g.keys(`state IN ('CA','TX','NY')`)),
    );
    expect(res.body.audiences[1].segment_ids).toEqual([ids.B]);
    expect(res.body.audiences[2].record_count).toBe(1234);
    expect(res.body.errors).toEqual([
      expect.objectContaining({ index: 2, name: 'missing', error: 'SEGMENT_NOT_FOUND', segment_ids: ['seg_gone'] }),
    ]);
    const tooMany = await s.call('POST', '/v1/audiences/bulk-create', {
      audiences: Array.from({ length: 26 }, (_, i) => ({ name: `n${i}`, segment_ids: [ids.A] })),
    });
    expect(tooMany.status).toBe(400);
    const badCampaign = await s.call('POST', '/v1/audiences/bulk-create', {
      campaign_id: 'cmp_x',
      audiences: [{ name: 'n', segment_ids: [ids.A] }],
    });
    expect(badCampaign.body.error).toBe('INVALID_CAMPAIGN_ID');
    // On a read nothing is created, so the message must not say so.
    const unknownList = await s.call('GET', '/v1/audiences?campaign_id=cmp_unknown00000000000000');
    expect(unknownList).toMatchObject({ status: 400, body: { error: 'INVALID_CAMPAIGN_ID' } });
    expect(unknownList.body.message).not.toContain('nothing was created');
  });

  it('lands a deferred count through the recount job', async () => {
    const { database } = await testStores();
    s.t.services.segmentsModule.faults.count = () => new Promise(() => {});
    let aud: any;
    try {
      const res = await s.call('POST', '/v1/audiences', { name: 'slow', segment_ids: [ids.A, ids.B] });
      aud = res.body;
    } finally {
      delete s.t.services.segmentsModule.faults.catalog;
      delete s.t.services.segmentsModule.faults.count;
    }
    expect(aud).toMatchObject({ record_count: null, record_count_reason: 'counting' });
    await s.t.services.segmentsModule
      .jobDefinitions()
      .find((d) => d.name === 'recount')!
      .handle({ orgId: s.org.orgId, kind: 'audience', id: aud.audience_id, version: 1 }, { id: 'test', retryCount: 0 });
    const after = (await s.call('GET', `/v1/audiences/${aud.audience_id}`)).body;
    expect(after.record_count).toEqual(near(union(await s.g.keys(`state IN ('CA','TX','NY')`), await s.g.keys('age >= 50')).size));
  }, 60_000);

  it('walks audience states: archive, reactivate, refresh, expiry, fork', async () => {
    const aud = (await s.call('POST', '/v1/audiences', { name: 'life', segment_ids: [ids.A, ids.B], excluded_segment_ids: [ids.D] })).body;
    const id = aud.audience_id;
    expect((await s.call('PATCH', `/v1/audiences/${id}`, { status: 'archived' })).body.status).toBe('archived');
    expect((await s.call('GET', '/v1/audiences?limit=100')).body.audiences.map((a: any) => a.audience_id)).not.toContain(id);
    expect((await s.call('GET', '/v1/audiences?limit=100&include_archived=true')).body.audiences.map((a: any) => a.audience_id)).toContain(
      id,
    );
    expect((await s.call('PATCH', `/v1/audiences/${id}`, { status: 'active', name: 'renamed' })).body).toMatchObject({
      status: 'active',
      name: 'renamed',
    });

    const refresh = (body: unknown) => s.call('POST', `/v1/audiences/${id}/refresh`, body);
    expect((await refresh({})).body.error).toBe('SEGMENT_ID_REQUIRED');
    expect((await refresh({ segment_id: ids.C })).body.error).toBe('SEGMENT_NOT_A_MEMBER');
    s.clock.advance(5 * DAY);
    const ok = await refresh({ segment_id: ids.A });
    expect(ok.body).toMatchObject({
      audience_id: id,
      segment_id: ids.A,
      version: 2,
      status: 'active',
      subtype: 'filter',
      refreshed: true,
      expires_at: '2026-06-04',
    });
    const got = (await s.call('GET', `/v1/audiences/${id}`)).body;
    expect(got).toMatchObject({ snapshot_version: 2, record_count: null, record_count_reason: 'not_counted' });
    expect((await s.call('POST', `/v1/audiences/${id}/count`)).body.record_count).toBe(aud.record_count);

    const fork = await s.call('POST', `/v1/audiences/${id}/fork`, { name: 'forked' });
    expect(fork.status).toBe(201);
    expect(fork.body).toMatchObject({
      parent_audience_id: id,
      parent_snapshot_version: 2,
      snapshot_version: 1,
      record_count: aud.record_count,
      segment_ids: [ids.A, ids.B],
    });

    await s.call('PATCH', `/v1/segments/${ids.B}`, { status: 'archived' });
    expect((await refresh({ segment_id: ids.B })).body.error).toBe('SEGMENT_ARCHIVED');
    await s.call('PATCH', `/v1/segments/${ids.B}`, { status: 'active' });

    s.clock.advance(91 * DAY);
    const { database } = await testStores();
    await sweepExpired(database.db, s.clock);
    expect((await s.call('GET', `/v1/audiences/${id}`)).body.status).toBe('expired');
    expect((await s.call('PATCH', `/v1/audiences/${id}`, { status: 'active' })).body.error).toBe('INVALID_STATUS_TRANSITION');
    await expect(
      s.t.services.segmentsModule.api.resolveSegmentInput(
        { orgId: s.org.orgId, userId: s.org.ownerId },
        { kind: 'audience', audienceId: id },
      ),
    ).rejects.toMatchObject({ code: 'AUDIENCE_EXPIRED' });
    // A segment refresh revives the (expired) member segments; the audience refresh renews the audience.
    await s.call('POST', `/v1/segments/${ids.A}/refresh`, {});
    expect((await refresh({ segment_id: ids.A })).body).toMatchObject({ status: 'active', version: 3 });
    expect((await s.call('GET', `/v1/audiences/${id}`)).body.status).toBe('active');
    s.clock.advance(-96 * DAY);
    for (const k of ['B', 'C', 'D']) await s.call('POST', `/v1/segments/${ids[k]}/refresh`, {});
  });

  it('refresh of a deleted member is 404 SEGMENT_NOT_FOUND', async () => {
    const tmp = (await s.segment({ filters: [cond('state', '=', 'CA')], create_audience: false })).segment_id;
    const aud = (await s.call('POST', '/v1/audiences', { name: 'del', segment_ids: [ids.A, tmp] })).body;
    await s.call('DELETE', `/v1/segments/${tmp}?confirm_impact=true`);
    const r = await s.call('POST', `/v1/audiences/${aud.audience_id}/refresh`, { segment_id: tmp });
    expect([r.status, r.body.error]).toEqual([404, 'SEGMENT_NOT_FOUND']);
  });

  it('refresh naming a segment id that resolves to nothing is 404 SEGMENT_NOT_FOUND; an existing non-member stays 400 SEGMENT_NOT_A_MEMBER', async () => {
    const aud = (await s.call('POST', '/v1/audiences', { name: 'refresh-ids', segment_ids: [ids.A] })).body;
    const refresh = (segmentId: string) => s.call('POST', `/v1/audiences/${aud.audience_id}/refresh`, { segment_id: segmentId });
    const other = await createTestOrg(s.t);
    const foreign = (await s.segment({ filters: [cond('state', '=', 'CA')], create_audience: false }, await other.token())).segment_id;
    for (const id of ['seg_doesnotexist000000', foreign]) {
      const r = await refresh(id);
      expect([r.status, r.body.error], id).toEqual([404, 'SEGMENT_NOT_FOUND']);
      expect(r.body.request_id, id).toBeTruthy();
    }
    const notMember = await refresh(ids.C);
    expect([notMember.status, notMember.body.error]).toEqual([400, 'SEGMENT_NOT_A_MEMBER']);
    // Nothing changed: the audience keeps its version.
    expect((await s.call('GET', `/v1/audiences/${aud.audience_id}`)).body.snapshot_version).toBe(1);
  });

  it('pages newest first across deleted and archived rows, per campaign by link time', async () => {
    const org = await createTestOrg(s.t);
    const tok = await org.token();
    const call = (m: string, url: string, body?: unknown) => s.call(m, url, body, tok);
    const seg = (await call('POST', '/v1/segments', { name: 's', filters: [cond('state', '=', 'CA')], create_audience: false })).body
      .segment_id;
    const made: string[] = [];
    for (let i = 0; i < 7; i++) {
      s.clock.advance(1000);
      made.push((await call('POST', '/v1/audiences', { name: `a${i}`, segment_ids: [seg] })).body.audience_id);
    }
    await call('PATCH', `/v1/audiences/${made[2]}`, { status: 'archived' });
    const walk = async (q: string) => {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: any = (await call('GET', `/v1/audiences?limit=2${q}${cursor ? `&cursor=${cursor}` : ''}`)).body;
        expect(page.count).toBe(page.audiences.length);
        seen.push(...page.audiences.map((a: any) => a.audience_id));
        cursor = page.next_cursor;
      } while (cursor);
      return seen;
    };
    expect(await walk('')).toEqual([...made].reverse().filter((id) => id !== made[2]));
    expect(await walk('&include_archived=true')).toEqual([...made].reverse());
    const firstDefault = (await call('GET', '/v1/audiences')).body;
    expect(firstDefault.count).toBe(6);

    const cmp = (await call('POST', '/v1/campaigns', { name: 'C', description: 'd' })).body.id;
    const cmp2 = (await call('POST', '/v1/campaigns', { name: 'C2' })).body.id;
    for (const id of [made[0], made[5], made[3]]) {
      s.clock.advance(1000);
      expect((await call('POST', `/v1/campaigns/${cmp}/audiences/${id}`)).status).toBe(204);
    }
    expect((await call('POST', `/v1/campaigns/${cmp}/audiences/${made[3]}`)).status).toBe(204);
    const linked = await call('POST', `/v1/campaigns/${cmp2}/audiences/${made[3]}`);
    expect(linked).toMatchObject({ status: 409, body: { error: 'AUDIENCE_ALREADY_LINKED', current_campaign_id: cmp } });
    const p1 = (await call('GET', `/v1/audiences?campaign_id=${cmp}&limit=1`)).body;
    expect(p1.audiences[0].audience_id).toBe(made[3]);
    // The cursor survives unlinking of the row it points at, and belongs to this campaign only.
    expect((await call('DELETE', `/v1/campaigns/${cmp}/audiences/${made[3]}`)).status).toBe(204);
    const p2 = (await call('GET', `/v1/audiences?campaign_id=${cmp}&limit=5&cursor=${p1.next_cursor}`)).body;
    expect(p2.audiences.map((a: any) => a.audience_id)).toEqual([made[5], made[0]]);
    expect((await call('GET', `/v1/audiences?cursor=${p1.next_cursor}`)).body.error).toBe('INVALID_CURSOR');
    expect((await call('GET', `/v1/audiences?campaign_id=${cmp2}&cursor=${p1.next_cursor}`)).body.error).toBe('INVALID_CURSOR');
    expect((await call('GET', '/v1/audiences?cursor=garbage')).body.error).toBe('INVALID_CURSOR');
    expect((await call('GET', `/v1/audiences?campaign_id=${cmp}&unlinked=true`)).body.error).toBe('CONFLICTING_FILTERS');
    expect((await call('GET', '/v1/audiences?campaign_id=cmp_unknown')).body.error).toBe('INVALID_CAMPAIGN_ID');
    expect((await call('GET', '/v1/audiences?limit=101')).status).toBe(400);
    const unlinked = (await call('GET', '/v1/audiences?unlinked=true&limit=100')).body.audiences.map((a: any) => a.audience_id);
    expect(unlinked).not.toContain(made[0]);
    expect(unlinked).toContain(made[3]);

    const got = (await call('GET', `/v1/campaigns/${cmp}`)).body;
    expect(got.audiences.map((a: any) => a.id)).toEqual([made[5], made[0]]);
    expect(got.audiences[0]).toMatchObject({ name: 'a5', segment_ids: [seg], set_logic: 'union', snapshot_version: 1 });
    expect(got.audiences[0].linked_at).toBeTruthy();
    const list = (await call('GET', '/v1/campaigns')).body;
    expect(list.campaigns.every((c: any) => c.audiences.length === 0)).toBe(true);
    expect((await call('PATCH', `/v1/campaigns/${cmp}`, { status: 'archived', description: 'x'.repeat(1000) })).body.status).toBe(
      'archived',
    );
    expect((await call('PATCH', `/v1/campaigns/${cmp}`, { description: 'x'.repeat(1001) })).status).toBe(400);
    // Usage stats count campaigns of active audiences.
    expect((await call('GET', `/v1/segments/${seg}`)).body).toMatchObject({ audience_count: 6, campaign_count: 1 });
    // Another organization sees none of it.
    expect((await s.call('GET', `/v1/campaigns/${cmp}`)).status).toBe(404);
    expect((await s.call('POST', `/v1/campaigns/${cmp}/audiences/${made[1]}`)).status).toBe(404);
    expect((await s.call('GET', `/v1/audiences/${made[1]}`)).status).toBe(404);
    s.clock.advance(-10_000);
  });

  it('sets origin_campaign_id and links the wrapper audience of a segment created under a campaign', async () => {
    const cmp = (await s.call('POST', '/v1/campaigns', { name: 'origin' })).body.id;
    const seg = await s.segment({ filters: [cond('state', '=', 'CA')], campaign_id: cmp });
    expect(seg.origin_campaign_id).toBe(cmp);
    expect((await s.call('GET', `/v1/audiences/${seg.audience_id}`)).body.campaign_id).toBe(cmp);
  });
});
