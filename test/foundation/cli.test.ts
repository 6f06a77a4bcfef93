import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { serveProcess } from '../helpers/serve-process.ts';

const run = promisify(execFile);
const TSX = join(process.cwd(), 'node_modules/.bin/tsx');

/** The operator's command line, on the same store as the test run (PGlite, or DATABASE_URL). */
describe('ads CLI', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'ads-cli-'));
  const env = { ...process.env, DATA_DIR: dataDir, GRAPH_PERSONS: '0' };
  const ads = async (...args: string[]) => JSON.parse((await run(TSX, ['src/main.ts', ...args], { env })).stdout);

  it('creates an organization, a user and a key, printing JSON', async () => {
    const org = await ads('org', 'create', 'Acme Corp', '--tier', 'growth');
    expect(org).toMatchObject({ name: 'Acme Corp', tier: 'growth' });
    expect(org.org_id).toMatch(/^org_/);
    const owner = await ads('users', 'add', '--org', org.org_id, '--email', 'Ann@Acme.test', '--role', 'owner');
    expect(owner).toMatchObject({ org_id: org.org_id, email: 'ann@acme.test', role: 'owner' });
    const key = await ads('keys', 'create', '--org', org.org_id, '--scopes', 'discovery,creator', '--name', 'sync');
    expect(key.raw_key).toMatch(/^ads_live_/);
    expect(key.scopes).toEqual(['discovery', 'creator']);
  }, 90_000);

  it('generates a graph, makes a minor release and refuses a bad import mapping (ads graph)', async () => {
    const generated = await ads('graph', 'generate', '--persons', '2000', '--seed', '5');
    expect(generated).toMatchObject({ current_release_major: 1, current_release_minor: 0, persons: 2000 });
    const minor = await ads('graph', 'release', '--minor');
    expect(minor).toMatchObject({ current_release_major: 1, current_release_minor: 1 });
    expect(minor.persons).toBeGreaterThan(2000);
    const csv = join(dataDir, 'people.csv');
    const mapping = join(dataDir, 'mapping.json');
    writeFileSync(csv, 'id,given\n1,Ann\n');
    writeFileSync(mapping, JSON.stringify({ person_key: 'nope' }));
    const failure = await run(TSX, ['src/main.ts', 'graph', 'import', csv, '--mapping', mapping], { env }).catch((e) => e);
    expect(failure.code).toBe(1);
    expect(failure.stderr).toContain('Column "nope" (mapped to "person_key") is not in the file');
  }, 120_000);

  it('explains usage errors with exit code 2', async () => {
    const failure = await run(TSX, ['src/main.ts', 'keys', 'create'], { env }).catch((e) => e);
    expect(failure.code).toBe(2);
    expect(failure.stderr).toContain('usage: ads keys create --org');
  }, 30_000);

  it.skipIf(!!process.env.DATABASE_URL)('stops with advice when a running server holds the embedded store', async () => {
    const busyDir = mkdtempSync(join(tmpdir(), 'ads-cli-busy-'));
    const server = await serveProcess(['src/main.ts', 'serve'], {
      DATA_DIR: busyDir, PORT: '0', HOST: '127.0.0.1', GRAPH_PERSONS: '0', LOG_LEVEL: 'warn', DATABASE_URL: '',
    }, 60_000);
    const failure = await run(TSX, ['src/main.ts', 'org', 'create', 'Other'], { env: { ...process.env, DATA_DIR: busyDir, DATABASE_URL: '' } }).catch((e) => e);
    await server.stop();
    expect(failure.code).toBe(1);
    expect(failure.stderr).toContain('is in use by another ads process');
    expect(failure.stderr).toContain('DATABASE_URL');
  }, 90_000);
});
