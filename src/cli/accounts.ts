import { parseArgs } from 'node:util';
import { loadConfig, type Config } from '../config/index.ts';
import { openDatabase } from '../db/database.ts';
import { systemClock } from '../lib/clock.ts';
import { createServerKeys } from '../db/server-secrets.ts';
import { createApiKeys } from '../modules/auth/index.ts';
import { passwordProblem } from '../lib/passwords.ts';
import { createOAuthModule } from '../modules/oauth/index.ts';
import { createOrganizationsModule } from '../modules/organizations/index.ts';
import { printJson, UsageError } from './output.ts';

/** Only what account commands need: no warehouse, no queue, no HTTP layer (a CLI call stays quick). */
function accountServices(database: Awaited<ReturnType<typeof openDatabase>>, config: Config) {
  const { db } = database;
  const { organizations } = createOrganizationsModule({ db, clock: systemClock, passwordScryptLogN: config.oauth.passwordScryptLogN });
  const apiKeys = createApiKeys({ db, organizations, clock: systemClock });
  return {
    organizations,
    apiKeys,
    oauth: () =>
      createOAuthModule({
        db,
        organizations,
        clock: systemClock,
        settings: config.oauth,
        secretCodec: createServerKeys(database, systemClock).codec,
      }),
  };
}

/** Runs a one-shot command against the control plane (embedded or PostgreSQL) and closes it. */
async function withServices<T>(fn: (services: ReturnType<typeof accountServices>) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    return await fn(accountServices(database, config));
  } finally {
    await database.close();
  }
}

/** Reads a secret piped on standard input (`--password-stdin`), without its trailing newline. */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

export async function orgCommand(args: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args,
    allowPositionals: true,
    options: { tier: { type: 'string' }, owner: { type: 'string' } },
  });
  if (positionals[0] === 'list' && positionals.length === 1) {
    const orgs = await withServices((s) => s.organizations.listOrganizations());
    printJson(
      orgs.map((o) => ({ org_id: o.id, name: o.name, tier: o.tier, users: o.users, owner_email: o.owner_email, created_at: o.created_at })),
    );
    return;
  }
  if (positionals[0] !== 'create' || !positionals[1]) throw new UsageError('name the organization: ads org create <name>');
  const { org, owner } = await withServices(async (s) => {
    const created = await s.organizations.createOrganization({ name: positionals.slice(1).join(' '), tier: values.tier });
    const user = values.owner ? await s.organizations.addUser({ orgId: created.id, email: values.owner, role: 'owner' }) : null;
    return { org: created, owner: user };
  });
  printJson({
    org_id: org.id,
    name: org.name,
    tier: org.tier,
    client_code: org.client_code,
    created_at: org.created_at,
    owner: owner ? { user_id: owner.id, email: owner.email } : null,
  });
  process.stderr.write(
    owner
      ? `Next: ads keys create --org ${org.id} --scopes discovery,creator,account\n`
      : `The organization has no owner yet. Next: ads users add --org ${org.id} --email <email> --role owner\n`,
  );
}

export async function usersCommand(args: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args,
    allowPositionals: true,
    options: { org: { type: 'string' }, email: { type: 'string' }, role: { type: 'string' }, 'password-stdin': { type: 'boolean' } },
  });
  if (positionals[0] !== 'add' || !values.org || !values.email || !values.role) {
    throw new UsageError(
      'ads users add needs --org, --email and --role (owner|admin|member); add --password-stdin to set a sign-in password',
    );
  }
  const password = values['password-stdin'] ? await readStdin() : null;
  const problem = password === null ? null : passwordProblem(password);
  if (problem) throw new UsageError(`${problem} Nothing was created.`);
  // Operator-created users are verified; with a password they can sign in (OAuth consent, device approval).
  const user = await withServices(async (s) => {
    const added = await s.organizations.addUser({ orgId: values.org!, email: values.email!, role: values.role! });
    if (password !== null) await s.organizations.setPassword(added.id, password);
    return added;
  });
  printJson({
    user_id: user.id,
    org_id: user.org_id,
    email: user.email,
    role: user.role,
    email_verified: true,
    password_set: password !== null,
    created_at: user.created_at,
  });
}

export async function keysCommand(args: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args,
    allowPositionals: true,
    options: { org: { type: 'string' }, user: { type: 'string' }, scopes: { type: 'string' }, name: { type: 'string' } },
  });
  if (positionals[0] === 'rotate-master' || positionals[0] === 'roll-signing') {
    const { rotateMasterCommand, rollSigningCommand } = await import('./key-management.ts');
    return positionals[0] === 'rotate-master' ? rotateMasterCommand() : rollSigningCommand();
  }
  if (positionals[0] !== 'create' || !values.org) throw new UsageError('ads keys create needs --org <org_id>');
  const scopes = (values.scopes ?? 'discovery')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = scopes.filter((s) => !['discovery', 'creator', 'account', 'purchase'].includes(s));
  if (bad.length) throw new UsageError(`unknown scope(s): ${bad.join(', ')}; use discovery, creator, account`);
  const key = await withServices(async (s) => {
    if (!(await s.organizations.findOrganization(values.org!)))
      throw new UsageError(`no organization ${values.org}; list them with: ads org list`);
    const user = values.user ? await s.organizations.findUser(values.org!, values.user) : await s.organizations.firstOwner(values.org!);
    if (!user) {
      throw new UsageError(
        values.user
          ? `user ${values.user} is not in organization ${values.org}`
          : `organization ${values.org} has no owner to issue the key for; add one first: ads users add --org ${values.org} --email <email> --role owner`,
      );
    }
    return s.apiKeys.issueKey({ orgId: values.org!, userId: user.id, name: values.name ?? 'cli key', scopes });
  });
  printJson({ ...key, org_id: values.org });
}

export async function oauthClientsCommand(args: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      'redirect-uri': { type: 'string', multiple: true },
      public: { type: 'boolean' },
      native: { type: 'boolean' },
    },
  });
  const redirectUris = values['redirect-uri'] ?? [];
  if (positionals[0] !== 'create' || !values.name || redirectUris.length === 0) {
    throw new UsageError('ads oauth-clients create needs --name and at least one --redirect-uri');
  }
  const client = await withServices(async (s) =>
    (await s.oauth())
      .registerPartnerClient({
        name: values.name!,
        redirectUris,
        confidential: !values.public,
        applicationType: values.native ? 'native' : 'web',
      })
      .catch((error: { error_description?: string; message: string }) => {
        throw new UsageError(`the client was refused: ${error.error_description ?? error.message}`);
      }),
  );
  printJson(client);
}
