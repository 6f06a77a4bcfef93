/**
 * One listening service per test worker for the OAuth tests (one oidc-provider, one metadata-document
 * server), on a real port of 127.0.0.1, with a clock the tests move. Tests isolate by organization.
 */
import { createServer, type AddressInfo } from 'node:net';
import { oauthSettings } from '../../src/config/oauth.ts';
import { ManualClock } from '../../src/lib/clock.ts';
import { createTestOrg, testApp, type TestApp, type TestOrg } from '../helpers/app.ts';
import { startMetadataServer, type MetadataServer } from './metadata-server.ts';

export interface OAuthServer extends TestApp {
  url: string;
  clock: ManualClock;
  documents: MetadataServer;
  resources: { api: string; mcp: string; a2a: string };
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** A listening service on a free port of 127.0.0.1 with the OAuth server and a metadata-document server. */
export async function startOAuthServer(config: { dataDir?: string } = {}): Promise<OAuthServer> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const clock = new ManualClock(new Date());
  const documents = await startMetadataServer();
  // A cheap password hash cost keeps sign-ins fast in tests; production uses 2^17.
  const oauth = oauthSettings({ PASSWORD_SCRYPT_LOG_N: '10' }, url);
  const t = await testApp({
    clock,
    config: { ...config, publicUrl: url, host: '127.0.0.1', port, oauth },
    deps: { metadataTransport: documents.transport },
  });
  await t.app.listen({ host: '127.0.0.1', port });
  return { ...t, url, clock, documents, resources: oauth.resources };
}

let shared: Promise<OAuthServer> | null = null;

export function oauthServer(): Promise<OAuthServer> {
  shared ??= startOAuthServer();
  return shared;
}

export const PASSWORD = 'correct horse battery staple';

export interface Person {
  userId: string;
  email: string;
  password: string;
}

/** A verified person with a password in the organization (as `ads users add --password-stdin` makes). */
export async function addPerson(t: TestApp, org: TestOrg, role: 'owner' | 'admin' | 'member' = 'member'): Promise<Person> {
  const email = `${role}-${Math.random().toString(36).slice(2, 10)}@example.com`;
  const user = await t.services.organizations.addUser({ orgId: org.orgId, email, role });
  await t.services.organizations.setPassword(user.id, PASSWORD);
  return { userId: user.id, email, password: PASSWORD };
}

export async function orgWithOwner(t: TestApp): Promise<{ org: TestOrg; owner: Person }> {
  const org = await createTestOrg(t);
  return { org, owner: await addPerson(t, org, 'owner') };
}
