import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainError } from '../../src/core/errors.ts';
import { bearer, createTestOrg, testApp, type TestApp, type TestOrg } from '../helpers/app.ts';

/** Spec section 7: every error class renders the same envelope, with the request id in a header too. */
describe('error envelope', () => {
  let t: TestApp;
  let org: TestOrg;
  beforeAll(async () => {
    t = await testApp({
      extraRoutes: (app) => {
        app.get('/v1/test/boom', { config: { access: 'discovery' } }, async () => {
          throw new Error('connection refused at 10.0.0.7:5432 password=hunter2');
        });
        app.get('/v1/test/conflict', { config: { access: 'discovery' } }, async () => {
          throw new DomainError('SEGMENT_IN_USE', 'In use.', { details: { audience_count: 2 }, nextStep: 'Pass confirm_impact=true.' });
        });
      },
    });
    org = await createTestOrg(t);
  });
  afterAll(() => t.app.close());

  function expectEnvelope(res: { statusCode: number; headers: Record<string, unknown>; json(): any }, status: number, code: string) {
    expect(res.statusCode).toBe(status);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    const body = res.json();
    expect(body.error).toBe(code);
    expect(typeof body.message).toBe('string');
    expect(body.request_id).toMatch(/^.{8,160}$/);
    expect(res.headers['x-request-id']).toBe(body.request_id);
    return body;
  }

  it('renders schema validation errors as 400 with issues', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/settings/api-keys',
      headers: bearer(await org.token()),
      payload: { name: 42, extra: true },
    });
    const body = expectEnvelope(res, 400, 'INVALID_REQUEST');
    const paths = body.issues.map((i: { path: string }) => i.path);
    expect(paths).toContain('$.name');
    expect(paths).toContain('$.extra');
    expect(body.next_step).toBeTruthy();
  });

  it('renders unknown routes as 404 NOT_FOUND', async () => {
    expectEnvelope(await t.app.inject({ method: 'GET', url: '/v1/no/such/route' }), 404, 'NOT_FOUND');
    expectEnvelope(await t.app.inject({ method: 'DELETE', url: '/nothing-here' }), 404, 'NOT_FOUND');
  });

  it('renders a body that is not JSON as 400 INVALID_JSON', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/auth/token',
      headers: { 'content-type': 'application/json' },
      payload: '{"api_key": ',
    });
    expectEnvelope(res, 400, 'INVALID_JSON');
  });

  it('renders an unsupported content type as 415', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/auth/token',
      headers: { 'content-type': 'application/xml' },
      payload: '<a/>',
    });
    expectEnvelope(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('renders a 500 without internals', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/test/boom', headers: bearer(await org.token()) });
    const body = expectEnvelope(res, 500, 'INTERNAL_ERROR');
    expect(res.body).not.toContain('hunter2');
    expect(res.body).not.toContain('10.0.0.7');
    expect(res.body).not.toMatch(/at .*\.ts:\d+/);
    expect(Object.keys(body).sort()).toEqual(['code', 'error', 'message', 'next_step', 'request_id']);
  });

  it('carries extra details, next_step and code for domain errors', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/test/conflict', headers: bearer(await org.token()) });
    const body = expectEnvelope(res, 409, 'SEGMENT_IN_USE');
    expect(body).toMatchObject({ code: 'SEGMENT_IN_USE', audience_count: 2, next_step: 'Pass confirm_impact=true.' });
  });

  it('echoes a sane client X-Request-Id and replaces an unsafe one', async () => {
    const mine = await t.app.inject({ method: 'GET', url: '/v1/nope', headers: { 'x-request-id': 'client-req-12345' } });
    expect(mine.json().request_id).toBe('client-req-12345');
    const unsafe = await t.app.inject({ method: 'GET', url: '/v1/nope', headers: { 'x-request-id': 'bad id <script>' } });
    expect(unsafe.json().request_id).toMatch(/^req_/);
    const ok = await t.app.inject({ method: 'GET', url: '/healthz' });
    expect(ok.headers['x-request-id']).toMatch(/^req_/);
  });
});
