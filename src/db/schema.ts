import type { ColumnType, Generated } from 'kysely';
import type {
  BillingAccountsTable,
  ContractChangesTable,
  CreditDrawsTable,
  CreditGrantsTable,
  IdentityLicensesTable,
  PaymentAttemptsTable,
  PortalLinksTable,
} from './schema-billing.ts';

export type {
  BillingAccountsTable,
  ContractChangesTable,
  CreditDrawsTable,
  CreditGrantsTable,
  IdentityLicensesTable,
  PaymentAttemptsTable,
  PortalLinksTable,
} from './schema-billing.ts';
import type { DeliveriesTable, DeliveryDestinationsTable, DeliveryQuotesTable } from './schema-deliveries.ts';
import type { AgentTasksTable, WorkflowRunsTable } from './schema-agents.ts';

export type { DeliveriesTable, DeliveryDestinationsTable, DeliveryQuotesTable };
export type { AgentTasksTable, WorkflowRunsTable };
import type {
  IntegrationAuthorizationsTable,
  IntegrationConnectionsTable,
  IntegrationRunRecordsTable,
  IntegrationRunsTable,
} from './schema-integrations.ts';
import type { IntegrationCollectionIdentitiesTable, IntegrationCollectionsTable } from './schema-integrations.ts';

export type {
  IntegrationAuthorizationsTable,
  IntegrationConnectionsTable,
  IntegrationRunRecordsTable,
  IntegrationRunsTable,
} from './schema-integrations.ts';
import type {
  EventsTable,
  WebhookAttemptsTable,
  WebhookDeliveriesTable,
  WebhookSettingsTable,
  WebhookSubscriptionsTable,
} from './schema-webhooks.ts';

export type {
  EventsTable,
  WebhookAttemptsTable,
  WebhookDeliveriesTable,
  WebhookSettingsTable,
  WebhookSubscriptionsTable,
} from './schema-webhooks.ts';

/** Kysely table types of the control plane. One interface per table, named after it. */

type Timestamp = ColumnType<Date, Date | string, Date | string>;

export interface OrganizationsTable {
  id: string;
  name: string;
  tier: string;
  client_code: string;
  created_at: Timestamp;
}

export interface UsersTable {
  id: string;
  org_id: string;
  email: string;
  role: string;
  status: Generated<string>;
  created_at: Timestamp;
  /** When the person proved control of the email (operator-created users are verified). */
  email_verified_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

/** One password hash per user that has one (owned by the organizations area). */
export interface UserCredentialsTable {
  user_id: string;
  password_hash: string;
  updated_at: Timestamp;
}

export interface InvitationsTable {
  id: string;
  org_id: string;
  user_id: string;
  token_hash: string;
  invited_by: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  accepted_at: Timestamp | null;
}

export interface MailOutboxTable {
  id: string;
  to_address: string;
  subject: string;
  text_body: string;
  created_at: Timestamp;
  sent_at: Timestamp | null;
  attempts: Generated<number>;
  last_error: string | null;
}

/** oidc-provider's models (ADR 028): one row per model instance, keyed by model and (hashed) id. */
export interface OAuthRecordsTable {
  model: string;
  key: string;
  payload: ColumnType<Record<string, unknown>, string, string>;
  grant_id: string | null;
  user_code: string | null;
  uid: string | null;
  account_id: string | null;
  client_id: string | null;
  org_id: string | null;
  client_name: string | null;
  last_polled_at: Timestamp | null;
  poll_interval: number | null;
  created_at: Timestamp;
  expires_at: Timestamp | null;
  consumed_at: Timestamp | null;
}

export interface OAuthSecretsTable {
  name: string;
  value: string;
  created_at: Generated<Timestamp>;
}

export interface ApiKeysTable {
  id: string;
  org_id: string;
  user_id: string;
  name: string;
  scopes: string[];
  key_hash: string;
  key_hint: string;
  created_at: Timestamp;
  deactivated_at: Timestamp | null;
  last_used_at: Timestamp | null;
}

export interface ServerSecretsTable {
  name: string;
  /** Wrapped under the master key: `mk1.<master key id>.<ciphertext>` (ADR 026). */
  value: string;
  created_at: Generated<Timestamp>;
  /** Set on a rolled-out signing key (`<name>@<time>`): it verifies until then. */
  retires_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

export interface RateLimitWindowsTable {
  org_id: string;
  window_start: Timestamp;
  used: number;
}

export interface IdempotencyRecordsTable {
  org_id: string;
  endpoint: string;
  key: string;
  request_hash: string;
  state: 'running' | 'completed';
  status_code: number | null;
  response: unknown;
  created_at: Timestamp;
  expires_at: Timestamp;
}

// --- Discovery compute budget (src/modules/discovery) ---
export interface ComputeUsageTable {
  org_id: string;
  window_start: Timestamp;
  /** bigint: node-pg returns it as a string. */
  bytes: ColumnType<string, number | bigint | string, number | bigint | string>;
  queries: ColumnType<number, number | undefined, number>;
}

// --- end discovery ---

// --- Segments, audiences, campaigns (src/modules/segments, audiences, campaigns) ---

export interface CampaignsTable {
  id: string;
  org_id: string;
  name: string;
  description: string;
  status: string;
  created_by: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface SegmentsTable {
  id: string;
  org_id: string;
  name: string;
  subtype: string;
  status: string;
  visibility: string;
  created_by: string;
  ephemeral: Generated<boolean>;
  record_count: number | null;
  record_count_reason: string | null;
  current_version: number;
  version_created_at: Timestamp;
  record_limit: number | null;
  filter_groups: unknown;
  details: Generated<unknown>;
  input_record_count: number | null;
  match_count: number | null;
  members_path: string | null;
  shared_source_segment_id: string | null;
  error_message: string | null;
  workflow_run_id: string | null;
  origin_campaign_id: string | null;
  webhook_url: string | null;
  release_major: number;
  release_minor: number;
  parent_segment_id: string | null;
  root_segment_id: string | null;
  parent_version: number | null;
  /** The status before archiving; unarchive restores it. */
  archived_from_status: Generated<string | null>;
  expires_at: Timestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
  deleted_at: Timestamp | null;
}

export interface AudiencesTable {
  id: string;
  org_id: string;
  name: string;
  status: string;
  visibility: string;
  created_by: string;
  set_logic: string;
  record_count: number | null;
  record_count_reason: string | null;
  counted_version: number | null;
  matched_record_count: number | null;
  match_count: number | null;
  input_record_count: number | null;
  snapshot_version: number;
  version_created_at: Timestamp;
  release_major: number;
  release_minor: number;
  campaign_id: string | null;
  linked_at: Timestamp | null;
  parent_audience_id: string | null;
  parent_snapshot_version: number | null;
  last_quote_id: string | null;
  last_quote_cost_cents: number | null;
  archived_from_status: Generated<string | null>;
  expires_at: Timestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
  deleted_at: Timestamp | null;
}

export interface AudienceSegmentsTable {
  audience_id: string;
  segment_id: string;
  org_id: string;
  role: string;
  position: number;
}

// --- end segments ---

// --- Billing: usage ledger (src/modules/billing) ---

export interface UsageLedgerTable {
  id: string;
  org_id: string;
  /** e.g. match.microbatch */
  kind: string;
  quantity: number;
  unit_price_cents: number;
  amount_cents: number;
  /** reserved | settled | released */
  status: string;
  request_fingerprint: string;
  created_at: Timestamp;
  settled_at: Timestamp | null;
  /** One charge per billable event: a second insert with the key finds the first row. */
  idempotency_key: string | null;
  /** Cents drawn from credits and commits; the rest is invoiced (invoiced organizations). */
  covered_cents: number;
  /** JSON text: what was billed (subtype, destination, fields, counts). */
  details: string | null;
}

// --- end billing ---

// --- File matching (src/modules/file-match) ---

export interface FileMatchesTable {
  segment_id: string;
  org_id: string;
  audience_id: string | null;
  upload_version: number;
  file_format: string;
  compression: string;
  shard_count: number;
  hitl: boolean;
  match_levels: ColumnType<unknown, string, string>;
  spatial_mode: string;
  matching_status: string;
  rows_read: ColumnType<number, number | undefined, number>;
  rows_matched: ColumnType<number, number | undefined, number>;
  analysis: ColumnType<unknown, string | null | undefined, string | null>;
  mapping_warnings: ColumnType<unknown, string | null | undefined, string | null>;
  results_path: string | null;
  run_id: string | null;
  error_code: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface FileMatchShardsTable {
  segment_id: string;
  upload_version: number;
  shard_index: number;
  object_key: string;
  bytes: ColumnType<string | number, number, number>;
  uploaded_at: Timestamp;
}

// --- end file matching ---

export interface DB {
  organizations: OrganizationsTable;
  users: UsersTable;
  user_credentials: UserCredentialsTable;
  invitations: InvitationsTable;
  mail_outbox: MailOutboxTable;
  oauth_records: OAuthRecordsTable;
  oauth_secrets: OAuthSecretsTable;
  api_keys: ApiKeysTable;
  server_secrets: ServerSecretsTable;
  rate_limit_windows: RateLimitWindowsTable;
  idempotency_records: IdempotencyRecordsTable;
  webhook_settings: WebhookSettingsTable;
  webhook_subscriptions: WebhookSubscriptionsTable;
  events: EventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  compute_usage: ComputeUsageTable;
  campaigns: CampaignsTable;
  segments: SegmentsTable;
  audiences: AudiencesTable;
  audience_segments: AudienceSegmentsTable;
  usage_ledger: UsageLedgerTable;
  billing_accounts: BillingAccountsTable;
  credit_grants: CreditGrantsTable;
  credit_draws: CreditDrawsTable;
  identity_licenses: IdentityLicensesTable;
  contract_changes: ContractChangesTable;
  payment_attempts: PaymentAttemptsTable;
  portal_links: PortalLinksTable;
  file_matches: FileMatchesTable;
  file_match_shards: FileMatchShardsTable;
  workflow_runs: WorkflowRunsTable;
  agent_tasks: AgentTasksTable;
  delivery_destinations: DeliveryDestinationsTable;
  delivery_quotes: DeliveryQuotesTable;
  deliveries: DeliveriesTable;
  integration_connections: IntegrationConnectionsTable;
  integration_authorizations: IntegrationAuthorizationsTable;
  integration_runs: IntegrationRunsTable;
  integration_run_records: IntegrationRunRecordsTable;
  integration_collections: IntegrationCollectionsTable;
  integration_collection_identities: IntegrationCollectionIdentitiesTable;
}
