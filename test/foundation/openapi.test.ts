import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testApp, type TestApp } from '../helpers/app.ts';

const run = promisify(execFile);

describe('OpenAPI document and docs', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp();
  });
  afterAll(() => t.app.close());

  it('serves OpenAPI 3.1, version 1.0.0, with bearer security and the error envelope on every operation', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.0.0');
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.components.schemas.ErrorEnvelope.required).toEqual(expect.arrayContaining(['error', 'message', 'request_id']));
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        expect(op.responses['500'], `${method} ${path} documents 500`).toBeDefined();
        if (op.security?.length !== 0 && path.startsWith('/v1/') && path !== '/v1/auth/token') {
          expect(op.responses['401'], `${method} ${path} documents 401`).toBeDefined();
        }
      }
    }
    expect(doc.paths['/v1/auth/token'].post.security).toEqual([]);
    // The OAuth protocol endpoints (form bodies, RFC 6749 errors) and the owners' grant operations.
    expect(doc.paths['/v1/oauth/token'].post.requestBody.content['application/x-www-form-urlencoded'].schema.required).toEqual([
      'grant_type',
    ]);
    for (const path of [
      '/v1/oauth/authorize',
      '/v1/oauth/device_authorization',
      '/v1/oauth/register',
      '/v1/oauth/revoke',
      '/.well-known/oauth-authorization-server',
    ]) {
      expect(Object.values<any>(doc.paths[path])[0].tags, path).toEqual(['OAuth']);
    }
    expect(doc.paths['/v1/settings/oauth-grants'].get['x-required-scope']).toBe('account-read');
    expect(doc.paths['/v1/settings/oauth-grants/{id}'].delete['x-required-scope']).toBe('account');
  });

  it('passes the Redocly linter with no errors', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    const dir = mkdtempSync(join(tmpdir(), 'ads-openapi-'));
    const file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(doc));
    const bin = join(process.cwd(), 'node_modules', '.bin', 'redocly');
    const result = await run(bin, ['lint', file, '--format', 'json'], {
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      maxBuffer: 20e6,
    }).catch((error: { stdout: string; stderr: string }) => error);
    const report = JSON.parse(result.stdout);
    const errors = report.problems.filter((p: { severity: string }) => p.severity === 'error');
    expect(
      errors.map((p: { ruleId: string; message: string; location: unknown }) => `${p.ruleId}: ${p.message} ${JSON.stringify(p.location)}`),
    ).toEqual([]);
  }, 60_000);

  it('serves human docs at /docs', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/docs/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.body).toContain('/v1/openapi.json');
  });
});
