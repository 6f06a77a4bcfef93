import type { Migration, MigrationProvider } from 'kysely/migration';
import * as m001 from './001-foundation.ts';
import * as m002webhooks from './002-webhooks.ts';
import * as m003discovery from './003-discovery.ts';
import * as m004segments from './004-segments.ts';
import * as m005billing from './005-billing.ts';
import * as m006fileMatch from './006-file-match.ts';
import * as m007webhookSecrets from './007-webhook-secrets.ts';
import * as m008archiveStatus from './008-archive-status.ts';
import * as m015keyRolling from './015-key-rolling.ts';
import * as m020deliveries from './020-deliveries.ts';
import * as m030signIn from './030-sign-in.ts';
import * as m031oauth from './031-oauth.ts';
import * as m040billing from './040-billing-accounts.ts';
import * as m050workflowRuns from './050-workflow-runs.ts';
import * as m060integrations from './060-integrations.ts';
import * as m080agentTasks from './080-agent-tasks.ts';
import * as m110deliveryQuoteLookup from './110-delivery-quote-lookup.ts';
import * as m111deliverySnapshots from './111-delivery-snapshots.ts';
import * as m140agentTaskFollow from './140-agent-task-follow.ts';
import * as m150integrationRunRecords from './150-integration-run-records.ts';
import * as m155integrationCollections from './155-integration-collections.ts';
import * as m160integrationRunAudience from './160-integration-run-audience.ts';
import * as m161deliveryUnbilled from './161-delivery-unbilled.ts';
import * as m165agentTaskOwner from './165-agent-task-owner.ts';
import * as m170privacyQuestions from './170-privacy-questions.ts';

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
  '008-archive-status': m008archiveStatus,
  '015-key-rolling': m015keyRolling,
  '020-deliveries': m020deliveries,
  '030-sign-in': m030signIn,
  '031-oauth': m031oauth,
  '040-billing-accounts': m040billing,
  '050-workflow-runs': m050workflowRuns,
  '060-integrations': m060integrations,
  '080-agent-tasks': m080agentTasks,
  '110-delivery-quote-lookup': m110deliveryQuoteLookup,
  '111-delivery-snapshots': m111deliverySnapshots,
  '140-agent-task-follow': m140agentTaskFollow,
  '150-integration-run-records': m150integrationRunRecords,
  '155-integration-collections': m155integrationCollections,
  '160-integration-run-audience': m160integrationRunAudience,
  '161-delivery-unbilled': m161deliveryUnbilled,
  '165-agent-task-owner': m165agentTaskOwner,
  '170-privacy-questions': m170privacyQuestions,
};

export const migrationProvider: MigrationProvider = {
  async getMigrations() {
    return MIGRATIONS;
  },
};
