import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, type BuildDeps, type BuiltApp } from '../../src/app.ts';
import { loadConfig, type Config, type Tier } from '../../src/config/index.ts';
import { ManualClock, type Clock } from '../../src/lib/clock.ts';
import { testStores } from './stores.ts';

export interface TestApp extends BuiltApp {
  clock: Clock;
  config: Config;
}

export function testConfig(overrides: Partial<Config> = {}): Config {
  // A fixed noise secret: privacy-layer answers are the same on every run and on both stores.
  return loadConfig(
    {
      DATA_DIR: mkdtempSync(join(tmpdir(), 'ads-test-')),
      LOG_LEVEL: 'silent',
      PRIVACY_NOISE_SECRET: 'test-privacy-noise',
      OUTBOUND_ALLOW_PRIVATE_TARGETS: 'true',
      TOKEN_EXCHANGE_PER_ADDRESS_PER_MINUTE: '100000',
    },
    overrides,
  );
}

/** A fully wired app on the shared test stores. Call `app.close()` in afterAll. */
export async function testApp(
  options: {
    clock?: Clock;
    config?: Partial<Config>;
    logger?: object;
    extraRoutes?: (app: BuiltApp['app'], built: BuiltApp) => void;
    deps?: Pick<BuildDeps, 'metadataTransport' | 'oauthSecretCodec' | 'outboundResolver'>;
  } = {},
): Promise<TestApp> {
  const { database, queue } = await testStores();
  const config = testConfig(options.config);
  const clock = options.clock ?? new ManualClock(new Date());
  const built = await build(config, { database, queue, clock, logger: options.logger ?? false, ...options.deps });
  options.extraRoutes?.(built.app, built);
  await built.app.ready();
  return { ...built, clock, config };
}

export interface TestOrg {
  orgId: string;
  ownerId: string;
  /** A fresh bearer for the owner with the given scopes. */
  token(scopes?: string[], userId?: string): Promise<string>;
  /** A raw API key for the owner with the given scopes. */
  rawKey(scopes?: string[], userId?: string): Promise<string>;
  addUser(role: 'owner' | 'admin' | 'member'): Promise<string>;
}

let orgCounter = 0;

export async function createTestOrg(t: BuiltApp, options: { tier?: Tier; name?: string } = {}): Promise<TestOrg> {
  const { organizations, apiKeys, auth } = t.services;
  const org = await organizations.createOrganization({
    name: options.name ?? `Test Org ${++orgCounter}`,
    tier: options.tier ?? 'enterprise',
  });
  const owner = await organizations.addUser({ orgId: org.id, email: `owner-${org.id.toLowerCase()}@example.com`, role: 'owner' });
  const rawKey = async (scopes = ['discovery', 'creator', 'account'], userId = owner.id) =>
    (await apiKeys.issueKey({ orgId: org.id, userId, name: 'test', scopes })).raw_key;
  return {
    orgId: org.id,
    ownerId: owner.id,
    rawKey,
    async token(scopes, userId) {
      return (await auth.exchangeApiKey(await rawKey(scopes, userId))).access_token;
    },
    async addUser(role) {
      return (await organizations.addUser({ orgId: org.id, email: `${role}-${Math.random().toString(36).slice(2)}@example.com`, role })).id;
    },
  };
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
