/** Schemas of the integrations operations: Integration run exactly as spec 2 states it; connections are ours (decision 038). */
import { Type } from 'typebox';
import { DateTime, Literals, Nullable, PageQuery } from '../../core/schema.ts';

export const ProviderParams = Type.Object({
  provider: Type.String({ minLength: 1, maxLength: 40, description: 'Provider identifier (`hubspot`)' }),
});
export const RunParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) });

export const AuthorizationSchema = Type.Object(
  {
    provider: Type.String(),
    authorization_url: Type.String({ description: "The provider's consent page; send the person there" }),
    state: Type.String({ description: 'Echoed by the provider to the redirect URI; send it back with the code' }),
    expires_at: DateTime('The state is refused after this'),
  },
  { additionalProperties: false },
);

export const CompleteBody = Type.Object(
  {
    code: Type.String({ minLength: 1, maxLength: 2000, description: 'The authorization code the provider sent to the redirect URI' }),
    state: Type.String({ minLength: 1, maxLength: 200 }),
  },
  { additionalProperties: false },
);

export const ConnectionSchema = Type.Object(
  {
    connection_id: Type.String(),
    provider: Type.String(),
    provider_account_id: Type.String({ description: "The provider's id of the connected account (HubSpot: hub id)" }),
    display_name: Nullable(Type.String()),
    status: Literals('connected', 'disconnected'),
    created_at: DateTime(),
  },
  { additionalProperties: false },
);

export const ConnectionListSchema = Type.Object({ connections: Type.Array(ConnectionSchema) }, { additionalProperties: false });

export const DisconnectBody = Type.Object(
  {
    app_data_policy: Literals('retain', 'remove'),
  },
  { additionalProperties: false },
);
export const DisconnectedSchema = Type.Object({ disconnected: Type.Literal(true) }, { additionalProperties: false });

const Count = Type.Integer({ minimum: 0 });
export const RunSchema = Type.Object(
  {
    run_id: Type.String(),
    provider: Type.String(),
    connection_id: Type.String(),
    connection_display_name: Nullable(Type.String()),
    kind: Literals('batch_enrichment', 'file_enrichment', 'ingest', 'activation', 'export'),
    data_flow: Literals('provider_to_platform', 'platform_to_provider', 'round_trip'),
    purpose: Literals('enrichment', 'ingest', 'activation', 'export'),
    status: Literals('created', 'processing', 'awaiting_boundary', 'settling', 'completed', 'failed', 'cancelled'),
    billing_source: Type.String({ description: '`native`, or the partner platform that bills the customer' }),
    customer_boundary: Literals('api_response', 'file_available', 'destination_handoff', 'provider_writeback'),
    counts: Type.Object(
      { input: Count, matched: Count, delivered: Count, applied: Count, unchanged: Count, skipped: Count, failed: Count },
      { additionalProperties: false },
    ),
    selected_fields: Type.Array(Type.String()),
    boundary_at: Nullable(DateTime()),
    failure_code: Nullable(Type.String()),
    failure_message: Nullable(Type.String()),
    created_at: DateTime(),
    updated_at: DateTime(),
    completed_at: Nullable(DateTime()),
  },
  { additionalProperties: false },
);

export const RunListSchema = Type.Object(
  {
    runs: Type.Array(RunSchema),
    has_more: Type.Boolean(),
    next_cursor: Nullable(Type.String()),
  },
  { additionalProperties: false },
);
export const RunListQuery = Type.Object(PageQuery);

export const CreateRunBody = Type.Object(
  {
    provider: Type.String({ minLength: 1, maxLength: 40 }),
    kind: Literals('batch_enrichment', 'file_enrichment', 'ingest', 'activation', 'export'),
    selected_fields: Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
      minItems: 1,
      maxItems: 50,
      description:
        'Catalog fields to write back (batch_enrichment, export, activation), put in the file (file_enrichment) or on the records (ingest)',
    }),
    audience_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'activation and export (required there, refused elsewhere): the audience pushed to the provider',
      }),
    ),
    billing_source: Type.Optional(
      Type.String({
        pattern: '^[a-z][a-z0-9_-]{1,39}$',
        description: '`native` (default: billed through the ledger) or a partner platform identifier (not billed here)',
      }),
    ),
  },
  { additionalProperties: false },
);

export const RecordListQuery = Type.Object(PageQuery);
export const RunRecordSchema = Type.Object(
  {
    provider_contact_id: Type.String({ description: "The provider's id of the contact (Mailchimp: `<audience id>:<email>`)" }),
    iag_person_id: Nullable(Type.String({ description: 'The matched person (tier 01 id of this organization)' })),
    match_level: Nullable(Type.String()),
    fields: Type.Record(Type.String(), Type.String(), { description: 'Selected fields the person has a value for' }),
  },
  { additionalProperties: false },
);
export const RunRecordListSchema = Type.Object(
  {
    records: Type.Array(RunRecordSchema),
    has_more: Type.Boolean(),
    next_cursor: Nullable(Type.String()),
  },
  { additionalProperties: false },
);
export const RunFileSchema = Type.Unsafe<unknown>({ type: 'string', format: 'binary', description: 'The enriched CSV file' });
