/** Tables of the deliveries area (src/modules/deliveries; migrations 020, 110, 111). JSON values are text columns. */
import type { ColumnType, Generated } from 'kysely';

type Timestamp = ColumnType<Date, Date | string, Date | string>;

export interface DeliveryDestinationsTable {
  id: string;
  org_id: string;
  kind: string;
  name: string;
  /** JSON text: the destination's configuration (never secrets). */
  config: string;
  secrets_sealed: string;
  created_at: Timestamp;
  deleted_at: Timestamp | null;
}

export interface DeliveryQuotesTable {
  id: string;
  org_id: string;
  audience_id: string;
  audience_version: number;
  selection_key: string;
  total_cost_cents: number;
  /** JSON text: the quote as answered. */
  body: string;
  created_at: Timestamp;
  expires_at: Timestamp;
}

export interface DeliveriesTable {
  id: string;
  org_id: string;
  audience_id: string;
  audience_version: number;
  created_by: string;
  destination: string;
  destination_id: string | null;
  template_id: string | null;
  /** JSON text arrays. */
  field_list: string | null;
  fields: string;
  include_unmatched: boolean;
  output_format: string;
  output_compression: string;
  status: string;
  content_key: string | null;
  estimated_cost_cents: number;
  cost_cents: number;
  /** JSON text: the usage reservations held for this delivery. */
  reservations: string;
  quote_id: string | null;
  webhook_url: string | null;
  matched_segment_id: string | null;
  source_job_id: string | null;
  /** The execution-key integration run of the matched segment (migration 155). */
  integration_run_id: ColumnType<string | null, string | null | undefined, string | null>;
  release_major: number;
  release_minor: number;
  output_bytes: number | string | null;
  output_record_count: number | null;
  billed_count: number | null;
  /** JSON text: [{name, location, bytes}] in order. */
  parts: string | null;
  failure_reason: string | null;
  error_code: string | null;
  /** JSON text: the pinned audience snapshot the delivery exports (null on deliveries made before). */
  snapshot: Generated<string | null>;
  created_at: Timestamp;
  completed_at: Timestamp | null;
  expires_at: Timestamp;
  /** Made by an integration run a partner bills (migration 161): nothing reserved, nothing charged. */
  unbilled: ColumnType<boolean, boolean | undefined, boolean>;
}
