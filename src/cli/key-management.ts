/**
 * `ads keys rotate-master` and `ads keys roll-signing` (ADR 026). Both work on the control plane only,
 * so they run beside a PostgreSQL deployment; the embedded store must be stopped first (its lock says so).
 */
import { existsSync } from 'node:fs';
import { loadConfig } from '../config/index.ts';
import { openDatabase } from '../db/database.ts';
import {
  masterKeyId,
  masterKeyPath,
  newMasterKey,
  parseMasterKey,
  promoteNextKeyFile,
  writeKeyFile,
  type MasterKey,
} from '../db/master-key.ts';
import { systemClock } from '../lib/clock.ts';
import {
  createServerKeys,
  rewrapUnderMasterKey,
  rollSigningKeys,
  rowsNotUnder,
  SIGNING_KEY_OVERLAP_SECONDS,
} from '../db/server-secrets.ts';
import { printJson, UsageError } from './output.ts';

export async function rotateMasterCommand(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const config = loadConfig(env);
  const fromEnv = !!env.ADS_MASTER_KEY;
  // The operator makes the new key (and keeps it) before anything is re-wrapped: it is never only in this process.
  if (fromEnv && !env.ADS_NEW_MASTER_KEY)
    throw new UsageError('with ADS_MASTER_KEY set, give the new key in ADS_NEW_MASTER_KEY (make one with: openssl rand -hex 32)');
  const path = fromEnv ? null : masterKeyPath({ env, dataDir: config.dataDir });
  // With a key file the new key is written first, as master.key.next (an interrupted rotation resumes
  // with it: every start offers it as a second candidate), and renamed over master.key last.
  if (path && !existsSync(`${path}.next`)) writeKeyFile(`${path}.next`, newMasterKey());
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, env });
  const started = Date.now();
  try {
    const next: MasterKey = path
      ? database.masterKeys.find((k) => k.path === `${path}.next`)!
      : (() => {
          const key = parseMasterKey(env.ADS_NEW_MASTER_KEY!, 'ADS_NEW_MASTER_KEY');
          return { id: masterKeyId(key), key, source: 'env' as const };
        })();
    const rewrapped = await rewrapUnderMasterKey(database, next);
    const left = await rowsNotUnder(database.db, next.id);
    if (left !== 0) throw new Error(`${left} stored keys are not under the new master key; nothing was switched.`);
    if (path) promoteNextKeyFile(path);
    printJson({
      master_key_id: next.id,
      previous_master_key_id: database.masterKeys[0]!.id,
      rewrapped,
      ms: Date.now() - started,
      ...(path ? { key_file: path } : {}),
    });
    process.stderr.write(
      path
        ? `The database's keys are wrapped under ${path} now. Restart every ads process.\n`
        : 'Set ADS_MASTER_KEY to the value of ADS_NEW_MASTER_KEY in every ads process and restart them; the old value no longer opens anything.\n',
    );
  } finally {
    await database.close();
  }
}

export async function rollSigningCommand(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const config = loadConfig(env);
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, env });
  try {
    const now = new Date();
    await createServerKeys(database, systemClock).sealStored(); // a store never served yet may hold plain keys
    const rolled = await rollSigningKeys(database, now);
    printJson({
      rolled,
      previous_keys_verify_until: Object.fromEntries(
        rolled.map((name) => [name, new Date(now.getTime() + SIGNING_KEY_OVERLAP_SECONDS[name]! * 1000).toISOString()]),
      ),
    });
    process.stderr.write(
      'Running processes sign with the new keys within 30 seconds; everything signed before still verifies until it expires.\n',
    );
  } finally {
    await database.close();
  }
}
