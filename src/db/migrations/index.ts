import type { Migration, MigrationProvider } from 'kysely/migration';
import * as m001 from './001-foundation.ts';
import * as m002webhooks from './002-webhooks.ts';
import * as m003discovery from './003-discovery.ts';
import * as m004segments from './004-segments.ts';
import * as m005billing from './005-billing.ts';
import * as m006fileMatch from './006-file-match.ts';
import * as m007webhookSecrets from './007-webhook-secrets.ts';

/**
 * Every migration, in order. Listed in code (not read from a folder) so the same set runs from
 * source, from tests and from a bundled build alike. Append only; never edit a shipped migration.
 */
const MIGRATIONS: Record<string, Migration> = {
  '001-foundation': m001,
  '002-webhooks': m002webhooks,
  '003-discovery': m003discovery,
  '004-segments': m004segments,
  '005-billing': m005billing,
  '006-file-match': m006fileMatch,
  '007-webhook-secrets': m007webhookSecrets,
};

export const migrationProvider: MigrationProvider = {
  async getMigrations() {
    return MIGRATIONS;
  },
};
