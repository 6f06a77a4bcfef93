/**
 * Integrations test kit: the HubSpot and Mailchimp stand-ins on loopback, the app (over the match-api
 * graph) pointed at them, and helpers to connect an organization through the provider's OAuth and to run
 * a run's job.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { bearer, createTestOrg, type TestOrg } from '../helpers/app.ts';
import { testStores } from '../helpers/stores.ts';
import { testPrivacy } from '../helpers/privacy.ts';
import { collectionQuestion } from '../../src/modules/integrations/collections.ts';
import type { CollectionFilter } from '../../src/modules/integrations/collections-store.ts';
import { hubspotSettings, startHubSpot, type HubSpotStandIn } from '../helpers/hubspot-server.ts';
import { mailchimpSettings, startMailchimp, type MailchimpStandIn } from '../helpers/mailchimp-server.ts';
import { setup as matchSetup, title, type MatchTest, type Row } from '../match-api/setup.ts';

export interface IntegrationTest extends MatchTest {
  hs: HubSpotStandIn;
  mc: MailchimpStandIn;
  as(token: string): (method: string, url: string, body?: unknown) => Promise<{ status: number; body: any }>;
  /** Authorizes and completes a HubSpot connection for `org` to `hubId`. */
  connect(token: string, hubId: number): Promise<{ status: number; body: any }>;
  /** Authorizes and completes a Mailchimp connection for `org` to `accountId`. */
  connectMailchimp(token: string, accountId: string): Promise<{ status: number; body: any }>;
  /** Runs a run's job to its end (what the worker does) and returns the run as GET shows it. */
  runJob(token: string, runId: string): Promise<any>;
  newOrg(tier?: 'paygo' | 'growth' | 'enterprise'): Promise<{ org: TestOrg; token: string }>;
  /** Events of a run (type and data), oldest first. */
  events(runId: string): Promise<{ type: string; data: any }[]>;
}

export async function setup(): Promise<IntegrationTest> {
  const hs = await startHubSpot();
  const mc = await startMailchimp();
  const m = await matchSetup('2026-03-01T12:10:00Z', {
    integrations: {
      ...hubspotSettings(hs),
      mailchimp: mailchimpSettings(mc),
      filesDir: fs.mkdtempSync(path.join(os.tmpdir(), 'ads-integration-files-')),
    },
  });
  // As `ads serve` does, the run queue exists; no worker consumes it here: tests run a run's job with runJob.
  const { queue } = await testStores();
  for (const def of m.t.services.jobDefinitions()) await queue.ensureQueue(def.name, def.queue);
  const as = (token: string) => async (method: string, url: string, body?: unknown) => {
    const res = await m.t.app.inject({
      method: method as 'GET',
      url,
      headers: bearer(token),
      ...(body === undefined ? {} : { payload: body as object }),
    });
    return { status: res.statusCode, body: res.body ? res.json() : null };
  };
  const k: IntegrationTest = {
    ...m,
    hs,
    mc,
    as,
    async connect(token, hubId) {
      const start = await as(token)('POST', '/v1/connections/hubspot/authorize');
      expect(start.status).toBe(200);
      const consent = new URL(start.body.authorization_url);
      expect(consent.searchParams.get('client_id')).toBe(hs.clientId);
      expect(consent.searchParams.get('redirect_uri')).toBe(hs.redirectUri);
      expect(consent.searchParams.get('state')).toBe(start.body.state);
      return as(token)('POST', '/v1/connections/hubspot', { code: hs.approve(hubId), state: start.body.state });
    },
    async connectMailchimp(token, accountId) {
      const start = await as(token)('POST', '/v1/connections/mailchimp/authorize');
      expect(start.status).toBe(200);
      const consent = new URL(start.body.authorization_url);
      expect(`${consent.origin}${consent.pathname}`).toBe(`${mc.url}/oauth2/authorize`);
      expect(Object.fromEntries(consent.searchParams)).toEqual({
        response_type: 'code',
        client_id: mc.clientId,
        redirect_uri: mc.redirectUri,
        state: start.body.state,
      });
      return as(token)('POST', '/v1/connections/mailchimp', { code: mc.approve(accountId), state: start.body.state });
    },
    async runJob(token, runId) {
      await m.t.services.integrations.runner.execute(runId);
      const res = await as(token)('GET', `/v1/integration-runs/${runId}`);
      expect(res.status).toBe(200);
      return res.body;
    },
    async newOrg(tier = 'paygo') {
      const org = await createTestOrg(m.t, { tier });
      return { org, token: await org.token() };
    },
    async events(runId) {
      const rows = await (
        await testStores()
      ).database.db
        .selectFrom('events')
        .select(['type', 'body'])
        .where('subject_id', '=', runId)
        .orderBy('created_at')
        .execute();
      return rows.map((r) => ({ type: r.type, data: (typeof r.body === 'string' ? JSON.parse(r.body) : r.body).data }));
    },
    async close() {
      await m.close();
      await hs.close();
      await mc.close();
    },
  };
  return k;
}

/** A HubSpot contact of a graph person (found by name and email). */
export const contactOf = (p: Row, extra: Record<string, string | null> = {}) => ({
  firstname: title(p.first_name),
  lastname: title(p.last_name),
  email: p.email,
  ...extra,
});

/** The count equations of decision 038 (common and per kind), checked on every run a test reads. */
export function expectEquations(run: any) {
  const c = run.counts;
  for (const v of Object.values(c)) expect(Number.isInteger(v) && (v as number) >= 0).toBe(true);
  expect(c.matched).toBeLessThanOrEqual(c.input);
  expect(c.applied + c.unchanged + c.skipped + c.failed).toBeLessThanOrEqual(c.matched);
  if (run.status === 'completed') expect(c.applied + c.unchanged + c.skipped + c.failed).toBe(c.matched);
  expect(c.delivered).toBe(c.applied + c.failed);
  if (run.kind === 'file_enrichment' || run.kind === 'ingest') expect([c.unchanged, c.failed]).toEqual([0, 0]);
  if (run.kind === 'ingest') expect(c.skipped).toBe(0);
}

/**
 * What a collection count (or a collection's unique_identity_count, filter {}) shows for a true count
 * under the fixed test noise secret: tests compare answers with this exactly, so noise seeded by random
 * run and connection ids never makes them flaky, and an off-by-one in the count still fails.
 */
export const shownCollectionCount = (collectionId: string, filter: CollectionFilter, trueCount: number) =>
  testPrivacy.shownCount({ question: collectionQuestion(collectionId, filter), trueCount }).record_count;
