/** Tables of the webhooks area (src/modules/webhooks), part of the DB type in schema.ts. */
import type { ColumnType, Generated } from 'kysely';

type Timestamp = ColumnType<Date, Date | string, Date | string>;

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
