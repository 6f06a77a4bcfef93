/**
 * Issue 12: how long `ads keys rotate-master` and `ads keys roll-signing` take on an embedded store with
 * the service's keys in it (server keys and the OAuth provider's keys), and how long a start's key
 * read is. `npx tsx bench/keys.ts` prints JSON.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rollSigningCommand, rotateMasterCommand } from '../src/cli/key-management.ts';
import { openDatabase } from '../src/db/database.ts';
import { systemClock } from '../src/lib/clock.ts';
import { ACCESS_TOKEN_SECRET, createServerKeys, OBJECT_URL_SECRET, PERSON_ID_SECRET } from '../src/db/server-secrets.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'ads-bench-keys-'));
const env = { DATA_DIR: dataDir, LOG_LEVEL: 'silent' } as NodeJS.ProcessEnv;
const database = await openDatabase({ databaseUrl: null, dataDir, env });
const keys = createServerKeys(database, systemClock);
for (const name of [PERSON_ID_SECRET, 'webhook_secret_key']) await keys.secret(name);
for (const name of [ACCESS_TOKEN_SECRET, OBJECT_URL_SECRET]) await keys.signing(name).keys();
for (let i = 0; i < 6; i++)
  await keys.codec.seal('x'.repeat(2000), `oauth-${i}`).then((value) =>
    database.db
      .insertInto('oauth_secrets')
      .values({ name: `oauth-${i}`, value })
      .execute(),
  );
const t0 = performance.now();
const fresh = createServerKeys(database, systemClock);
await fresh.secret(PERSON_ID_SECRET);
await fresh.signing(ACCESS_TOKEN_SECRET).keys();
const readMs = performance.now() - t0;
await database.close();

const out = process.stdout.write.bind(process.stdout);
const err = process.stderr.write.bind(process.stderr);
/** Runs a command with its output captured: total milliseconds (opening the store included) and its JSON. */
const timed = async (fn: () => Promise<void>) => {
  let printed = '';
  process.stdout.write = ((chunk: string) => {
    printed += chunk;
    return true;
  }) as typeof process.stdout.write;
  process.stderr.write = (() => true) as typeof process.stderr.write;
  const start = performance.now();
  try {
    await fn();
  } finally {
    process.stdout.write = out;
    process.stderr.write = err;
  }
  return { ms: Math.round(performance.now() - start), result: JSON.parse(printed) };
};
const rotate = await timed(() => rotateMasterCommand(env));
const roll = await timed(() => rollSigningCommand(env));
console.log(
  JSON.stringify({
    bench: 'keys',
    rows: rotate.result.rewrapped,
    rotate_master_command_ms: rotate.ms,
    rewrap_transaction_ms: rotate.result.ms,
    roll_signing_command_ms: roll.ms,
    first_key_read_ms: Math.round(readMs),
  }),
);
