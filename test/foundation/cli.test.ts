import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { serveProcess } from '../helpers/serve-process.ts';

const run = promisify(execFile);
/** The command as operators run it. */
const BIN = join(process.cwd(), 'bin/ads.mjs');

/** The operator's command line, on the same store as the test run (PGlite, or DATABASE_URL). */
describe('ads CLI', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'ads-cli-'));
  const env = { ...process.env, DATA_DIR: dataDir, GRAPH_PERSONS: '0' };
  const ads = async (...args: string[]) => JSON.parse((await run(process.execPath, [BIN, ...args], { env })).stdout);

  it('creates an organization, a user and a key, printing JSON', async () => {
    const org = await ads('org', 'create', 'Acme Corp', '--tier', 'growth');
    expect(org).toMatchObject({ name: 'Acme Corp', tier: 'growth' });
    expect(org.org_id).toMatch(/^org_/);
    const owner = await ads('users', 'add', '--org', org.org_id, '--email', 'Ann@Acme.test', '--role', 'owner');
    expect(owner).toMatchObject({ org_id: org.org_id, email: 'ann@acme.test', role: 'owner' });
    const key = await ads('keys', 'create', '--org', org.org_id, '--scopes', 'discovery,creator', '--name', 'sync');
    expect(key.raw_key).toMatch(/^ads_live_/);
    expect(key.scopes).toEqual(['discovery', 'creator']);
  }, 180_000);

  it('sets a password from standard input (users add --password-stdin); a short one is refused', async () => {
    const withStdin = (args: string[], input: string) =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = execFile(process.execPath, [BIN, ...args], { env }, (error, stdout, stderr) =>
          resolve({ code: error ? (error.code as number) : 0, stdout, stderr }),
        );
        child.stdin!.end(input);
      });
    const org = await ads('org', 'create', 'Password Corp');
    const ok = await withStdin(
      ['users', 'add', '--org', org.org_id, '--email', 'pat@pw.test', '--role', 'admin', '--password-stdin'],
      'a long enough passphrase\n',
    );
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ email: 'pat@pw.test', role: 'admin', email_verified: true, password_set: true });
    const short = await withStdin(
      ['users', 'add', '--org', org.org_id, '--email', 'sam@pw.test', '--role', 'member', '--password-stdin'],
      'short\n',
    );
    expect(short.code).toBe(2);
    expect(short.stderr).toContain('A password needs at least 12 characters. Nothing was created.');
  }, 180_000);

  it('generates a graph, makes a minor release and refuses a bad import mapping (ads graph)', async () => {
    // Retention counts the releases live segments name. On PostgreSQL the worker's database holds other test
    // files' segments (at the shared graph's release 1.0), so this case runs on an embedded store of its own.
    const graphEnv = { ...env, DATABASE_URL: '' };
    const graphAds = async (...args: string[]) => JSON.parse((await run(process.execPath, [BIN, ...args], { env: graphEnv })).stdout);
    const generated = await graphAds('graph', 'generate', '--persons', '2000', '--seed', '5');
    expect(generated).toMatchObject({ current_release_major: 1, current_release_minor: 0, persons: 2000 });
    const minor = await graphAds('graph', 'release', '--minor');
    expect(minor).toMatchObject({ current_release_major: 1, current_release_minor: 1 });
    expect(minor.persons).toBeGreaterThan(2000);
    // Retention: the current release and the one before are kept; older unreferenced ones can go.
    await graphAds('graph', 'release', '--minor');
    const listed = await graphAds('graph', 'releases');
    expect(listed.keep.map((r: { release: string }) => r.release)).toEqual(['1.2', '1.1']);
    expect(listed.removable.map((r: { release: string }) => r.release)).toEqual(['1.0']);
    const pruned = await graphAds('graph', 'releases', '--prune');
    expect(pruned.removed.map((r: { release: string }) => r.release)).toEqual(['1.0']);
    expect(existsSync(join(dataDir, 'warehouse', 'releases', pruned.removed[0].file))).toBe(false);
    expect((await graphAds('graph', 'releases')).removable).toEqual([]);
    const csv = join(dataDir, 'people.csv');
    const mapping = join(dataDir, 'mapping.json');
    writeFileSync(csv, 'id,given\n1,Ann\n');
    writeFileSync(mapping, JSON.stringify({ person_key: 'nope' }));
    const failure = await run(process.execPath, [BIN, 'graph', 'import', csv, '--mapping', mapping], { env }).catch((e) => e);
    expect(failure.code).toBe(1);
    expect(failure.stderr).toContain('Column "nope" (mapped to "person_key") is not in the file');
  }, 120_000);

  it('explains usage errors with exit code 2, helps every command, and never prints a stack for a usage error', async () => {
    const failure = await run(process.execPath, [BIN, 'keys', 'create'], { env }).catch((e) => e);
    expect(failure.code).toBe(2);
    expect(failure.stderr).toContain('ads keys create --org <org_id>');
    expect(failure.stderr).not.toMatch(/\n\s+at /);
    const badOption = await run(process.execPath, [BIN, 'org', 'create', 'X', '--colour', 'red'], { env }).catch((e) => e);
    expect(badOption.code).toBe(2);
    expect(badOption.stderr).toContain("Unknown option '--colour'");
    expect(badOption.stderr).not.toMatch(/\n\s+at /);
    const unknown = await run(process.execPath, [BIN, 'frobnicate'], { env }).catch((e) => e);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "frobnicate"');
    for (const args of [['-h'], ['--help'], ['help'], []]) {
      const help = await run(process.execPath, [BIN, ...args], { env });
      expect(help.stdout).toContain('Commands:');
      expect(help.stderr).not.toContain('EBADENGINE');
    }
    for (const command of ['serve', 'org', 'users', 'keys', 'graph']) {
      const viaFlag = await run(process.execPath, [BIN, command, '--help'], { env });
      expect(viaFlag.stdout).toContain(`ads ${command}`);
      expect((await run(process.execPath, [BIN, 'help', command], { env })).stdout).toBe(viaFlag.stdout);
    }
  }, 60_000);

  it('creates an organization with its owner in one step, lists organizations, and names the fix when there is no owner', async () => {
    const withOwner = JSON.parse(
      (await run(process.execPath, [BIN, 'org', 'create', 'Owned Co', '--owner', 'Boss@Owned.test'], { env })).stdout,
    );
    expect(withOwner.owner).toMatchObject({ email: 'boss@owned.test' });
    const key = JSON.parse((await run(process.execPath, [BIN, 'keys', 'create', '--org', withOwner.org_id], { env })).stdout);
    expect(key.raw_key).toMatch(/^ads_live_/);
    const bare = await run(process.execPath, [BIN, 'org', 'create', 'Ownerless'], { env });
    const ownerless = JSON.parse(bare.stdout);
    expect(bare.stderr).toContain(`ads users add --org ${ownerless.org_id}`);
    const noOwner = await run(process.execPath, [BIN, 'keys', 'create', '--org', ownerless.org_id], { env }).catch((e) => e);
    expect(noOwner.code).toBe(2);
    expect(noOwner.stderr).toContain(`ads users add --org ${ownerless.org_id} --email <email> --role owner`);
    const list = JSON.parse((await run(process.execPath, [BIN, 'org', 'list'], { env })).stdout) as {
      org_id: string;
      owner_email: string | null;
    }[];
    expect(list.find((o) => o.org_id === withOwner.org_id)).toMatchObject({ owner_email: 'boss@owned.test' });
    expect(list.find((o) => o.org_id === ownerless.org_id)).toMatchObject({ owner_email: null });
  }, 180_000);

  it('refuses a busy port before creating anything (no demo key printed, nothing stored)', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = String((blocker.address() as { port: number }).port);
    const busyDir = mkdtempSync(join(tmpdir(), 'ads-cli-port-'));
    const failure = await run(process.execPath, [BIN, 'serve'], {
      env: { ...process.env, DATA_DIR: busyDir, PORT: port, HOST: '127.0.0.1', GRAPH_PERSONS: '0', DATABASE_URL: '' },
      timeout: 30_000,
    }).catch((e) => e);
    blocker.close();
    expect(failure.code).toBe(2);
    expect(failure.stderr).toContain(`port ${port} on 127.0.0.1 is already in use`);
    expect(failure.stdout).not.toContain('ads_live_');
    expect(existsSync(join(busyDir, 'pg'))).toBe(false);
  }, 60_000);

  it.skipIf(!!process.env.DATABASE_URL)(
    'stops with advice when a running server holds the embedded store',
    async () => {
      const busyDir = mkdtempSync(join(tmpdir(), 'ads-cli-busy-'));
      const server = await serveProcess(
        ['src/main.ts', 'serve'],
        {
          DATA_DIR: busyDir,
          PORT: '0',
          HOST: '127.0.0.1',
          GRAPH_PERSONS: '0',
          LOG_LEVEL: 'warn',
          DATABASE_URL: '',
        },
        60_000,
      );
      const failure = await run(process.execPath, [BIN, 'org', 'create', 'Other'], {
        env: { ...process.env, DATA_DIR: busyDir, DATABASE_URL: '' },
      }).catch((e) => e);
      await server.stop();
      expect(failure.code).toBe(1);
      expect(failure.stderr).toContain('is in use by another ads process');
      expect(failure.stderr).toContain('DATABASE_URL');
    },
    180_000,
  );
});
