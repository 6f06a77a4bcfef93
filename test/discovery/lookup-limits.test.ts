import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.ts';
import { ManualClock } from '../../src/lib/clock.ts';
import { CATALOG_FIELDS } from '../../src/graph/person-fields.ts';
import { bearer, createTestOrg, testApp, type TestApp } from '../helpers/app.ts';
import { generateTestGraph } from './graph.ts';

const PII = CATALOG_FIELDS.filter((f) => f.pii).map((f) => f.name);
const NON_PII = CATALOG_FIELDS.filter((f) => !f.pii).map((f) => f.name);
const CA = [{ field: 'state', op: '=', value: 'CA' }];

describe('lookup, compute budget, no differencing refusals, scopes', () => {
  let t: TestApp;
  const clock = new ManualClock('2026-03-01T12:10:00Z');

  beforeAll(async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'ads-disc-'));
    await generateTestGraph(dataDir);
    // paygo gets a budget of a few counts; enterprise keeps the default.
    const defaults = loadConfig({}).discovery;
    const discovery = { ...defaults, computeBudgetBytes: { ...defaults.computeBudgetBytes, paygo: 1_000_000 } };
    t = await testApp({ clock, config: { dataDir, discovery } });
  });
  afterAll(() => t.app.close());

  const post = (url: string, token: string, body: object) => t.app.inject({ method: 'POST', url, headers: bearer(token), payload: body });

  it('lookup returns masked rows of the requested non-PII fields only, with total_matched', async () => {
    const token = await (await createTestOrg(t)).token(['discovery']);
    const res = await post('/v1/discovery/lookup', token, {
      filters: CA,
      fields: ['state', 'age', 'gender', 'zip', 'home_value'],
      limit: 5,
    });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.rows).toHaveLength(5);
    for (const row of body.rows) {
      expect(Object.keys(row).sort()).toEqual(['age', 'gender', 'home_value', 'state', 'zip5']);
      expect(row.state).toBe('CA');
      // Generalized: age in 10-year bands, ZIP as its 3-digit prefix, home value in 100,000 bands.
      expect(row.age).toMatch(/^\d*0-\d*9$/);
      expect(row.zip5).toMatch(/^\d{3}xx$/);
      if (row.home_value !== null) expect(row.home_value).toMatch(/^\d*00000-\d*99999$/);
    }
    // A list-valued field is returned decoded (a row only when its combination is k-anonymous).
    const lists = await post('/v1/discovery/lookup', token, {
      filters: CA,
      fields: ['state', 'presence_of_children', 'interests'],
      limit: 5,
    });
    expect(lists.statusCode, lists.body).toBe(200);
    for (const row of lists.json().rows) expect(Array.isArray(row.interests)).toBe(true);
    expect(body.total_matched).toBeGreaterThan(50);
    expect(body.available_fields.sort()).toEqual([...NON_PII].sort());
    for (const name of [...PII, 'person_key']) expect(body.available_fields).not.toContain(name);
    // has_email / has_phone are non-PII flags; the values themselves never appear.
    expect(JSON.stringify(body.rows)).not.toMatch(/person_key|first_name|last_name|"email|"phone|address_1|"dob"|@/);
  });

  it('lookup refuses PII and unknown fields, naming them', async () => {
    expect(PII).toEqual(expect.arrayContaining(['first_name', 'dob']));
    const token = await (await createTestOrg(t)).token(['discovery']);
    const res = await post('/v1/discovery/lookup', token, { filters: CA, fields: ['state', 'first_name', 'dob', 'sate'] });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body.error).toBe('INVALID_LOOKUP_FIELDS');
    expect(body.message).toContain('first_name');
    expect(body.issues.map((i: { code: string }) => i.code)).toEqual(['PII_FIELD_NOT_ALLOWED', 'PII_FIELD_NOT_ALLOWED', 'UNKNOWN_FIELD']);
    expect(body.issues[2].suggestions).toContain('state');
  });

  it('lookup limit and fields bounds', async () => {
    const token = await (await createTestOrg(t)).token(['discovery']);
    for (const body of [
      { filters: CA, fields: ['state'], limit: 0 },
      { filters: CA, fields: ['state'], limit: 26 },
      { filters: CA, fields: [] },
      { filters: CA, fields: ['state', 'state'] },
      { filters: CA, fields: Array.from({ length: 31 }, (_, i) => `f${i}`) },
      { filters: CA },
    ]) {
      const res = await post('/v1/discovery/lookup', token, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
    }
    const res = await post('/v1/discovery/lookup', token, { filters: CA, fields: ['state'] });
    expect(res.json().rows).toHaveLength(10);
    const max = await post('/v1/discovery/lookup', token, { filters: CA, fields: ['state'], limit: 25 });
    expect(max.json().rows).toHaveLength(25);
  });

  it('compute budget: 429 compute_limit_exceeded past the hourly budget, reset at the next hour', async () => {
    const org = await createTestOrg(t, { tier: 'paygo' });
    const token = await org.token(['discovery']);
    let refused: Awaited<ReturnType<typeof post>> | null = null;
    for (let i = 0; i < 20 && !refused; i++) {
      const res = await post('/v1/discovery/count', token, { filters: CA, group_by: 'gender' });
      if (res.statusCode === 429) refused = res;
      else expect(res.statusCode, res.body).toBe(200);
    }
    expect(refused).not.toBeNull();
    expect(refused!.json()).toMatchObject({ error: 'compute_limit_exceeded' });
    expect(refused!.json().retry_after_seconds).toBe(50 * 60);
    clock.advance(50 * 60 * 1000);
    const after = await post('/v1/discovery/count', token, { filters: CA, group_by: 'gender' });
    expect(after.statusCode, after.body).toBe(200);
  });

  it('no differencing refusal: a count within 50 of a recent one is answered, repeats answer the same', async () => {
    const token = await (await createTestOrg(t)).token(['discovery']);
    const a = await post('/v1/discovery/count', token, { filters: CA });
    expect(a.statusCode).toBe(200);
    const again = await post('/v1/discovery/count', token, { filters: CA });
    expect(again.json().count).toBe(a.json().count);
    // CA minus a handful of people (the very old): the old guard refused this.
    const b = await post('/v1/discovery/count', token, { filters: [...CA, { field: 'age', op: '<', value: 95 }] });
    expect(b.statusCode, b.body).toBe(200);
    expect(Math.abs(b.json().count - a.json().count)).toBeLessThan(50);
  });

  it('scopes: 401 without a bearer, 403 SCOPE_REQUIRED without discovery, creator works', async () => {
    const org = await createTestOrg(t);
    const none = await t.app.inject({ method: 'POST', url: '/v1/discovery/count', payload: { filters: CA } });
    expect(none.statusCode).toBe(401);
    const account = await post('/v1/discovery/count', await org.token(['account']), { filters: CA });
    expect(account.statusCode).toBe(403);
    expect(account.json().error).toBe('SCOPE_REQUIRED');
    const creator = await post('/v1/discovery/count', await org.token(['creator']), { filters: CA });
    expect(creator.statusCode, creator.body).toBe(200);
    const fields = await t.app.inject({ method: 'GET', url: '/v1/catalog/fields', headers: bearer(await org.token(['account'])) });
    expect(fields.statusCode).toBe(403);
  });

  it('GET /v1/catalog/fields lists every field without storage details, and the templates', async () => {
    const token = await (await createTestOrg(t)).token(['discovery']);
    const res = await t.app.inject({ method: 'GET', url: '/v1/catalog/fields', headers: bearer(token) });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.fields.map((f: { name: string }) => f.name)).toEqual(CATALOG_FIELDS.map((f) => f.name));
    expect(res.body).not.toContain('storage');
    expect(res.body).not.toContain('interests_mask');
    const zip = body.fields.find((f: { name: string }) => f.name === 'zip5');
    expect(zip.aliases).toEqual(expect.arrayContaining(['zip', 'zip_code', 'postal_code']));
    for (const f of body.fields) {
      expect(f.enrichment_price_usd).toBe(f.enrichment_price_cents / 100);
      expect(typeof f.pii).toBe('boolean');
    }
    expect(body.templates.map((x: { template_id: string }) => x.template_id).sort()).toEqual(['standard_enrichment', 'standard_iag']);
  });
});
