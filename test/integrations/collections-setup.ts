/**
 * Collections test kit: the OAuth server (a real port, so signed upload URLs and the token endpoint are
 * reachable) over the match-api graph, the file-match resolution worker on the shared test queue, a
 * confidential partner client with a token of an owner, and graph persons picked independently of the matcher.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import * as oauth from 'oauth4webapi';
import { readCurrentRelease, releaseFilePath } from '../../src/graph/releases.ts';
import type { JobDefinition } from '../../src/jobs/worker.ts';
import { COLLECTION_REFRESH_JOB } from '../../src/modules/integrations/index.ts';
import { bearer, type TestOrg } from '../helpers/app.ts';
import { testStores } from '../helpers/stores.ts';
import { ensureGraph, pickPersons, title, type MatchTest, type Row } from '../match-api/setup.ts';
import { authorize, discover, redeem, registerPublicClient } from '../oauth/flows.ts';
import { orgWithOwner, startOAuthServer, type OAuthServer, type Person } from '../oauth/setup.ts';
import { waitFor } from '../webhooks/helpers.ts';

export interface CollectionTest {
  server: OAuthServer;
  org: TestOrg;
  owner: Person;
  partner: { client_id: string; client_secret: string | null };
  /** An access token of the partner client for the REST API, with these scopes approved. */
  partnerToken(scopes?: string[]): Promise<string>;
  /** An access token of a dynamically registered public client for the REST API. */
  publicClientToken(): Promise<string>;
  call(
    token: string,
    method: string,
    url: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: any }>;
  put(url: string, body: string): Promise<number>;
  waitResolved(token: string, matchId: string): Promise<any>;
  /** The collection refresh job (what pg-boss runs), for one organization. */
  refresh(orgId: string): Promise<any>;
  people(n: number): Promise<Row[]>;
  /** Events of a run (type and data), oldest first. */
  events(runId: string): Promise<{ type: string; data: any }[]>;
  close(): Promise<void>;
}

export async function setupCollections(): Promise<CollectionTest> {
  const dataDir = await ensureGraph();
  const server = await startOAuthServer({ dataDir });
  const { queue } = await testStores();
  // As `ads serve` does, every queue exists; only the file-match resolution has a worker here.
  for (const def of server.services.jobDefinitions()) await queue.ensureQueue(def.name, def.queue);
  const resolve = server.services.fileMatch.jobDefinitions()[0] as JobDefinition;
  const workerId = await queue.work<any>(
    resolve.name,
    { batchSize: 1, pollingIntervalSeconds: 0.5, notifyPollingIntervalSeconds: 1, includeMetadata: true } as never,
    async (jobs) => {
      for (const job of jobs) await resolve.handle(job.data, { id: job.id, retryCount: 0 });
    },
  );
  const refreshJob = server.services.jobDefinitions().find((d) => d.name === COLLECTION_REFRESH_JOB)!;
  const { org, owner } = await orgWithOwner(server);
  const partner = await server.services.oauth.registerPartnerClient({
    name: 'Partner Workflows',
    redirectUris: ['https://partner.example/oauth/callback'],
  });
  const as = await discover(server);
  const inst = await DuckDBInstance.create(':memory:', { threads: '1' });
  const conn = await inst.connect();
  await conn.run(`ATTACH '${releaseFilePath(dataDir, readCurrentRelease(dataDir)!)}' AS graph (READ_ONLY)`);
  const q = async (sql: string) => (await conn.runAndReadAll(sql)).getRowObjectsJS() as Row[];

  const call: CollectionTest['call'] = async (token, method, url, body, headers = {}) => {
    const res = await server.app.inject({
      method: method as 'GET',
      url,
      headers: { ...bearer(token), ...headers },
      ...(body === undefined ? {} : { payload: body as object }),
    });
    return { status: res.statusCode, body: res.body ? res.json() : null };
  };

  return {
    server,
    org,
    owner,
    partner,
    call,
    async partnerToken(scopes = ['discovery', 'creator']) {
      const client: oauth.Client = { client_id: partner.client_id };
      const redirectUri = 'https://partner.example/oauth/callback';
      const auth = await authorize(server, owner, { client, scope: scopes.join(' '), resource: null, redirectUri, approve: scopes });
      const res = await redeem(server, as, client, auth, {
        resource: null,
        redirectUri,
        clientAuth: oauth.ClientSecretBasic(partner.client_secret!),
      });
      return (await oauth.processAuthorizationCodeResponse(as, client, res)).access_token;
    },
    async publicClientToken() {
      const client = await registerPublicClient(server);
      const auth = await authorize(server, owner, {
        client,
        scope: 'discovery creator',
        resource: server.resources.api,
        approve: ['discovery', 'creator'],
      });
      const res = await redeem(server, as, client, auth, { resource: server.resources.api });
      return (await oauth.processAuthorizationCodeResponse(as, client, res)).access_token;
    },
    async put(url, body) {
      const res = await fetch(url, { method: 'PUT', body, headers: { 'content-type': 'text/csv' } });
      await res.text();
      return res.status;
    },
    async waitResolved(token, matchId) {
      let last: any;
      await waitFor(async () => {
        last = (await call(token, 'GET', `/v1/match/file/${matchId}`)).body;
        return ['completed', 'failed'].includes(last.matching_status);
      }, 60_000);
      return last;
    },
    refresh: (orgId) => refreshJob.handle({ org_id: orgId }, { id: 'test', retryCount: 0 }),
    async people(n) {
      return (await pickPersons({ q } as unknown as MatchTest, n)).map((p, i) => ({
        row_id: `g${i}`,
        email: p.email,
        first_name: title(p.first_name),
        last_name: title(p.last_name),
        zip: p.zip5,
      }));
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
      await queue.boss.offWork(resolve.name, { id: workerId });
      conn.closeSync();
      inst.closeSync();
      await server.app.close();
      await server.documents.close();
    },
  };
}
