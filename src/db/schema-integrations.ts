/** Tables of the integrations area (migration 060), part of the DB type in schema.ts. */
import type { ColumnType } from 'kysely';

type Timestamp = ColumnType<Date, Date | string, Date | string>;

export interface IntegrationConnectionsTable {
  id: string;
  org_id: string;
  provider: string;
  provider_account_id: string;
  display_name: string | null;
  /** connected | disconnected */
  status: string;
  /** Sealed (src/modules/integrations/token-box.ts); null once disconnected. */
  access_token: string | null;
  refresh_token: string | null;
  token_expires_at: Timestamp | null;
  /** JSON array of provider property names this service created. */
  app_properties: string;
  app_data_policy: string | null;
  created_by: string;
  created_at: Timestamp;
  updated_at: Timestamp;
  disconnected_at: Timestamp | null;
}

export interface IntegrationAuthorizationsTable {
  state: string;
  org_id: string;
  user_id: string;
  provider: string;
  expires_at: Timestamp;
}

export interface IntegrationRunsTable {
  id: string;
  org_id: string;
  connection_id: string;
  provider: string;
  kind: string;
  data_flow: string;
  purpose: string;
  status: string;
  billing_source: string;
  customer_boundary: string;
  /** JSON text of the counts. */
  counts: string;
  /** JSON text array. */
  selected_fields: string;
  cancel_requested: ColumnType<boolean, boolean | undefined, boolean>;
  boundary_at: Timestamp | null;
  failure_code: string | null;
  failure_message: string | null;
  created_by: string;
  created_at: Timestamp;
  updated_at: Timestamp;
  completed_at: Timestamp | null;
  /** Execution-key runs (migration 155): the partner client, the match, the first answer. */
  oauth_client_id: ColumnType<string | null, string | null | undefined, string | null>;
  match_segment_id: ColumnType<string | null, string | null | undefined, string | null>;
  execution_body_hash: ColumnType<string | null, string | null | undefined, string | null>;
  execution_response: ColumnType<string | null, string | null | undefined, string | null>;
  /** When the run's matched identities were captured into the collection. */
  captured_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  /** activation and export (migration 160): the audience pushed, its delivery, the provider list created. */
  audience_id: ColumnType<string | null, string | null | undefined, string | null>;
  delivery_id: ColumnType<string | null, string | null | undefined, string | null>;
  provider_list_id: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface IntegrationCollectionsTable {
  id: string;
  org_id: string;
  name: string;
  kind: string;
  status: string;
  retention_days: number;
  identity_count: number | null;
  count_refreshed_at: Timestamp | null;
  last_captured_at: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface IntegrationCollectionIdentitiesTable {
  collection_id: string;
  org_id: string;
  run_id: string;
  person_key: ColumnType<string, string | bigint, string | bigint>;
  provider: string;
  connection_id: string;
  source_kind: string;
  boundary_at: Timestamp;
  captured_at: Timestamp;
  expires_at: Timestamp;
}

export interface IntegrationRunRecordsTable {
  run_id: string;
  seq: number;
  org_id: string;
  provider_contact_id: string;
  iag_person_id: string | null;
  match_level: string | null;
  /** JSON text object: field -> value. */
  field_values: string;
}
