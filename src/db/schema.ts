import type { ColumnType, Generated } from 'kysely';

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
  value: string;
  created_at: Generated<Timestamp>;
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

// --- Webhooks (src/modules/webhooks) ---

export interface WebhookSettingsTable {
  org_id: string;
  url: string | null;
  /** Sealed (`wsk1.…`, AES-256-GCM; see src/modules/webhooks/secret-box.ts), never plain text. */
  secret: string;
  secret_hint: string;
  secret_created_at: Timestamp;
  disabled_at: Timestamp | null;
  disabled_reason: string | null;
  updated_at: Timestamp;
}

export interface WebhookSubscriptionsTable {
  id: string;
  org_id: string;
  target_url: string;
  events: string[];
  /** Sealed (`wsk1.…`, AES-256-GCM; see src/modules/webhooks/secret-box.ts), never plain text. */
  secret: string;
  secret_hint: string;
  status: string;
  disabled_reason: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  deleted_at: Timestamp | null;
}

export interface EventsTable {
  id: string;
  org_id: string;
  type: string;
  subject_kind: string;
  subject_id: string;
  body: string;
  created_at: Timestamp;
}

export interface WebhookDeliveriesTable {
  id: string;
  org_id: string;
  event_id: string;
  destination: string;
  subscription_id: string | null;
  target_url: string;
  status: string;
  failure_reason: string | null;
  attempt_count: Generated<number>;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: Timestamp | null;
  redelivery_of: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  completed_at: Timestamp | null;
}

export interface WebhookAttemptsTable {
  delivery_id: string;
  attempt: number;
  org_id: string;
  started_at: Timestamp;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
  outcome: string;
}

// --- end webhooks ---

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
  file_matches: FileMatchesTable;
  file_match_shards: FileMatchShardsTable;
}
