import { parseArgs } from 'node:util';
import { loadConfig } from '../config.ts';
import { openDatabase } from '../db/database.ts';
import { systemClock } from '../lib/clock.ts';
import { createApiKeyService } from '../modules/api-keys/service.ts';
import { createApiKeyStore } from '../modules/api-keys/store.ts';
import { createOrganizationService } from '../modules/organizations/service.ts';
import { createOrganizationStore } from '../modules/organizations/store.ts';
import { printJson, UsageError } from './output.ts';

/** Only what account commands need: no warehouse, no queue, no HTTP layer (a CLI call stays quick). */
function accountServices(db: Awaited<ReturnType<typeof openDatabase>>['db']) {
  const organizations = createOrganizationService({ store: createOrganizationStore(db), clock: systemClock });
  const apiKeys = createApiKeyService({ store: createApiKeyStore(db), organizations, clock: systemClock });
  return { organizations, apiKeys };
}

/** Runs a one-shot command against the control plane (embedded or PostgreSQL) and closes it. */
async function withServices<T>(fn: (services: ReturnType<typeof accountServices>) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    return await fn(accountServices(database.db));
  } finally {
    await database.close();
  }
}

export async function orgCommand(args: string[]): Promise<void> {
  const { positionals, values } = parseArgs({ args, allowPositionals: true, options: { tier: { type: 'string' } } });
  if (positionals[0] !== 'create' || !positionals[1]) throw new UsageError('usage: ads org create <name> [--tier pilot]');
  const org = await withServices((s) => s.organizations.createOrganization({ name: positionals.slice(1).join(' '), tier: values.tier }));
  printJson({ org_id: org.id, name: org.name, tier: org.tier, client_code: org.client_code, created_at: org.created_at });
}

export async function usersCommand(args: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args,
    allowPositionals: true,
    options: { org: { type: 'string' }, email: { type: 'string' }, role: { type: 'string' } },
  });
  if (positionals[0] !== 'add' || !values.org || !values.email || !values.role) {
    throw new UsageError('usage: ads users add --org <org_id> --email <email> --role owner|admin|member');
  }
  const user = await withServices((s) => s.organizations.addUser({ orgId: values.org!, email: values.email!, role: values.role! }));
  printJson({ user_id: user.id, org_id: user.org_id, email: user.email, role: user.role, created_at: user.created_at });
}

export async function keysCommand(args: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args,
    allowPositionals: true,
    options: { org: { type: 'string' }, user: { type: 'string' }, scopes: { type: 'string' }, name: { type: 'string' } },
  });
  if (positionals[0] !== 'create' || !values.org) {
    throw new UsageError('usage: ads keys create --org <org_id> [--user <user_id>] [--scopes discovery,creator,account] [--name N]');
  }
  const scopes = (values.scopes ?? 'discovery').split(',').map((s) => s.trim()).filter(Boolean);
  const bad = scopes.filter((s) => !['discovery', 'creator', 'account', 'purchase'].includes(s));
  if (bad.length) throw new UsageError(`unknown scope(s): ${bad.join(', ')}; use discovery, creator, account`);
  const key = await withServices(async (s) => {
    const user = values.user ? await s.organizations.findUser(values.org!, values.user) : await s.organizations.firstOwner(values.org!);
    if (!user) {
      throw new UsageError(values.user ? `user ${values.user} is not in organization ${values.org}` : `organization ${values.org} has no owner (or does not exist)`);
    }
    return s.apiKeys.issueKey({ orgId: values.org!, userId: user.id, name: values.name ?? 'cli key', scopes });
  });
  printJson({ ...key, org_id: values.org });
}
