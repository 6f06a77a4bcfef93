import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobDefinition } from '../../src/jobs/worker.ts';
import { setup, type FileTest } from '../file-match/helpers.ts';

/**
 * Inside one organization: every id in a body must belong with the path's resource and be visible to
 * the caller; Idempotency-Keys belong to the caller; an upload URL of a deleted segment refuses the
 * file and its job ends with a logged reason.
 */
let f: FileTest;
let otherToken: string;
beforeAll(async () => {
  f = await setup();
  await f.stopWorker(); // the resolution job is driven by hand below
  const member = await f.org.addUser('member');
  otherToken = await f.org.token(['discovery', 'creator'], member);
});
afterAll(() => f.t.app.close());

describe('ids in a body belong to the caller', () => {
  it("upload-failed with another user's private audience_id is 404 and leaves that audience as it was", async () => {
    const theirs = await f.create({ name: 'private list', visibility: 'private' });
    const mine = await f.create({ name: 'my list' }, undefined);
    const mineAsOther = await f.call('POST', '/v1/match/file', { name: 'other user list' }, { token: otherToken });
    expect(mineAsOther.status).toBe(201);
    const res = await f.call(
      'POST',
      `/v1/segments/${mineAsOther.body.segment_id}/upload-failed`,
      { audience_id: theirs.audience_id },
      { token: otherToken },
    );
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ error: 'AUDIENCE_NOT_FOUND' });
    expect(res.body.request_id).toBeTruthy();
    // The owner's private audience and segment are untouched; the caller's own segment too.
    expect((await f.call('GET', `/v1/audiences/${theirs.audience_id}`)).body.status).not.toBe('failed');
    expect((await f.call('GET', `/v1/segments/${mineAsOther.body.segment_id}`, undefined, { token: otherToken })).body.status).toBe(
      'pending',
    );
    // An audience the caller can see that does not include this segment: 400 SEGMENT_NOT_A_MEMBER.
    const wrong = await f.call(
      'POST',
      `/v1/segments/${mineAsOther.body.segment_id}/upload-failed`,
      { audience_id: mine.audience_id },
      { token: otherToken },
    );
    expect(wrong.body.error).toBe('SEGMENT_NOT_A_MEMBER');
    // Another user's private segment in the path: 404.
    const path = await f.call('POST', `/v1/segments/${theirs.segment_id}/upload-failed`, {}, { token: otherToken });
    expect(path.status).toBe(404);
  });

  it("replaying another user's Idempotency-Key creates the caller's own segment, never returns theirs", async () => {
    const key = `shared-key-${Date.now()}`;
    const theirs = await f.create({ name: 'idem private', visibility: 'private' }, { 'idempotency-key': key });
    const replay = await f.call(
      'POST',
      '/v1/match/file',
      { name: 'idem private', visibility: 'private' },
      { token: otherToken, headers: { 'idempotency-key': key } },
    );
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('false');
    expect(replay.body.segment_id).not.toBe(theirs.segment_id);
    expect(replay.body.upload_url).not.toContain(theirs.segment_id);
    // The owner's own retry still replays the owner's segment.
    const again = await f.call(
      'POST',
      '/v1/match/file',
      { name: 'idem private', visibility: 'private' },
      { headers: { 'idempotency-key': key } },
    );
    expect(again.body.segment_id).toBe(theirs.segment_id);
  });
});

describe('deleted segments', () => {
  it('an upload URL of a deleted segment refuses the file (410 UPLOAD_TARGET_GONE in the envelope)', async () => {
    const c = await f.create({ name: 'to delete' });
    expect((await f.call('DELETE', `/v1/segments/${c.segment_id}`)).status).toBe(204);
    const put = await f.put(c.upload_url, 'email\nx@example.com\n');
    expect(put.status).toBe(410);
    expect(put.body).toMatchObject({ error: 'UPLOAD_TARGET_GONE' });
    expect(put.body.request_id).toBeTruthy();
  });

  it('a queued match whose segment is deleted ends for good with its reason logged, not retried', async () => {
    const warnings: object[] = [];
    const c = await f.create({ name: 'deleted while queued' });
    expect((await f.put(c.upload_url, 'email\nx@example.com\n')).status).toBe(200);
    expect((await f.call('GET', `/v1/match/file/${c.segment_id}`)).body.matching_status).toBe('queued');
    expect((await f.call('DELETE', `/v1/segments/${c.segment_id}`)).status).toBe(204);
    const def = f.t.services.fileMatch.jobDefinitions()[0] as JobDefinition;
    const log = f.t.app.log as unknown as { warn: (...a: unknown[]) => void };
    const original = log.warn;
    log.warn = (...a: unknown[]) => void warnings.push(a[0] as object);
    try {
      const result = await def.handle({ orgId: f.org.orgId, segmentId: c.segment_id, uploadVersion: 1 }, { id: 'job-test', retryCount: 0 });
      expect(result).toEqual({ skipped: true, reason: 'segment_deleted' });
      // A redelivery of the same job is a no-op: the match is settled as failed.
      expect(
        await def.handle({ orgId: f.org.orgId, segmentId: c.segment_id, uploadVersion: 1 }, { id: 'job-test', retryCount: 1 }),
      ).toEqual({ skipped: true });
    } finally {
      log.warn = original;
    }
    expect(warnings).toContainEqual({ org_id: f.org.orgId, segment_id: c.segment_id });
  });
});
