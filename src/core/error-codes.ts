/**
 * The one registry of error codes: every machine-readable code the service can answer with, its HTTP
 * status (the REST envelope's; the JSON-RPC mapping of MCP and A2A derives from it) and its default text
 * (what a DomainError says when its raiser adds nothing more specific). `outage`: an expected 5xx (the
 * graph or a dependency is unavailable, a statement timed out), logged as a warning, not as a failure.
 *
 * Spelling follows spec section 7 (upper snake case, except the two throttling codes it writes in lower case).
 */
export const ERROR_CODES = {
  // Requests
  INVALID_REQUEST: { status: 400, text: 'The request is malformed or a field is out of range.' },
  INVALID_JSON: { status: 400, text: 'The body is not well-formed JSON.' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, text: 'The Content-Type (or Content-Encoding) is not accepted here.' },
  PAYLOAD_TOO_LARGE: { status: 413, text: 'The body is larger than the operation accepts.' },
  URI_TOO_LONG: { status: 414, text: 'The request line is too long.' },
  HEADERS_TOO_LARGE: { status: 431, text: 'The request headers are too large.' },
  NOT_FOUND: { status: 404, text: 'No such route, or a resource that is not visible to the caller.' },
  INVALID_CURSOR: { status: 400, text: 'A paging cursor that this list did not issue.' },
  CONFLICTING_FILTERS: { status: 400, text: 'Two list filters that cannot be combined.' },
  INVALID_IDEMPOTENCY_KEY: { status: 400, text: 'An Idempotency-Key header that is not 1-255 printable characters.' },
  IDEMPOTENCY_KEY_CONFLICT: { status: 409, text: 'The Idempotency-Key was used before with a different body.' },
  IDEMPOTENT_REQUEST_IN_PROGRESS: { status: 409, text: 'A request with the same Idempotency-Key is still running.' },
  LIMIT_EXCEEDED: { status: 400, text: 'A request holds more conditions, groups or list items than an operation accepts.' },

  // Authentication and authorization
  TOKEN_INVALID: { status: 401, text: 'The bearer token is missing, malformed or revoked.' },
  TOKEN_EXPIRED: { status: 401, text: 'The bearer token is past its lifetime.' },
  SCOPE_REQUIRED: { status: 403, text: 'The token lacks the scope the operation requires.' },
  OWNER_OR_ADMIN_REQUIRED: { status: 403, text: 'Only organization owners and admins may do this.' },
  FORBIDDEN: { status: 403, text: 'The caller may not do this.' },

  // Throttling
  rate_limit_exceeded: { status: 429, text: 'Too many requests per minute for the tier.' },
  compute_limit_exceeded: { status: 429, text: 'The organization query-scan budget for this hour is spent.' },

  // Discovery and the graph
  INVALID_FILTER: { status: 400, text: 'Unknown field, disallowed operator or invalid value in filters.' },
  INVALID_GROUP_BY: { status: 400, text: 'group_by names a field that cannot be grouped by.' },
  INVALID_LOOKUP_FIELDS: { status: 400, text: 'Lookup fields that are unknown, repeated or personally identifying.' },
  AMBIGUOUS_INPUT: { status: 400, text: 'More than one discovery input form.' },
  NO_INPUT_SPECIFIED: { status: 400, text: 'No discovery input form.' },
  AGGREGATION_FLOOR_NOT_MET: { status: 422, text: 'The result is below the privacy minimum.' },
  FILTER_CATALOG_UNAVAILABLE: { status: 502, text: 'The field catalog cannot be read; nothing was created.', outage: true },
  DATA_RELEASE_UNAVAILABLE: { status: 503, text: 'No data release has been published yet.', outage: true },
  BQ_TABLE_MISSING: { status: 502, text: 'A data set behind the request is missing (expired, or an upload never finished).', outage: true },
  SERVICE_UNAVAILABLE: { status: 503, text: 'The service is temporarily unable to answer.', outage: true },
  QUERY_TIMEOUT: { status: 503, text: 'A warehouse statement ran past its time limit and was stopped.', outage: true },

  // Segments, audiences, campaigns
  SEGMENT_NOT_FOUND: { status: 404, text: 'The segment id resolves to nothing visible to the caller.' },
  AUDIENCE_NOT_FOUND: { status: 404, text: 'The audience id resolves to nothing visible to the caller.' },
  CAMPAIGN_NOT_FOUND: { status: 404, text: 'The campaign id resolves to nothing in the organization.' },
  AUDIENCE_NOT_LINKED: { status: 404, text: 'The audience is not linked to that campaign.' },
  INVALID_CAMPAIGN_ID: { status: 400, text: 'An unknown campaign id; nothing was created.' },
  RECORD_LIMIT_UNSUPPORTED: { status: 400, text: 'record_limit on a subtype other than filter.' },
  CAP_GEOGRAPHY_REQUIRED: { status: 400, text: 'record_limit without narrowing geography on every OR branch.' },
  UNKNOWN_SUBTYPE: { status: 400, text: 'A subtype this operation does not handle.' },
  MISSING_SEGMENTS: { status: 400, text: 'An audience without an included segment.' },
  SEGMENT_ID_REQUIRED: { status: 400, text: 'Audience refresh without segment_id.' },
  SEGMENT_NOT_A_MEMBER: { status: 400, text: 'Audience refresh of a segment that is not a member.' },
  SEGMENT_ARCHIVED: { status: 409, text: 'The segment is archived.' },
  SEGMENT_IN_USE: { status: 409, text: 'The segment is used by active audiences.' },
  SHARED_SOURCE_DATA: { status: 409, text: 'A matched duplicate shares its source data and cannot be refreshed alone.' },
  AUDIENCE_ALREADY_LINKED: { status: 409, text: 'The audience belongs to another campaign.' },
  AUDIENCE_EXPIRED: { status: 409, text: 'The audience version is past its expiry; refresh it first.' },
  AUDIENCE_PENDING: { status: 409, text: 'A member segment of the audience is still processing.' },
  INVALID_STATUS_TRANSITION: { status: 409, text: 'The state table does not allow this move.' },
  MISSING_POSITIVE_CLASS_ID: { status: 422, text: 'Refresh of a legacy propensity segment without a positive class.' },
  WORKFLOW_LAUNCH_FAILED: { status: 502, text: 'A workflow could not be launched; retry.', outage: true },

  // Similarity and propensity workflows
  WORKFLOW_NOT_FOUND: { status: 404, text: 'The workflow run id resolves to nothing visible to the caller.' },
  WORKFLOW_NOT_AWAITING_REVIEW: { status: 409, text: 'The workflow run is not paused at a review gate.' },
  GATE_NOT_OPEN: { status: 409, text: 'The gate_id is not the review gate the run is paused at.' },
  INVALID_GATE_RESPONSE: { status: 400, text: 'A review gate response this gate does not accept.' },
  GENERATION_METADATA_NOT_FOUND: {
    status: 400,
    text: 'generation_metadata_id names no completed run of this subtype in the organization.',
  },
  SEED_SEGMENT_NOT_READY: { status: 409, text: 'The seed or positive-class segment has no members yet (pending, failed or archived).' },
  INVALID_SEED_DESCRIPTION: { status: 400, text: 'The seed description yields no usable filter.' },
  INVALID_EXCLUDED_COLUMNS: { status: 400, text: 'excluded_columns names a column that is not a catalog field.' },

  // Matching and file matching
  TOO_MANY_RECORDS: { status: 400, text: 'More records than a micro-batch accepts.' },
  DUPLICATE_ROW_ID: { status: 400, text: 'Two records with one row_id.' },
  INVALID_ROW_ID: { status: 400, text: 'A row_id that is blank.' },
  UNKNOWN_FIELD: { status: 400, text: 'A field_list entry that is not in the catalog.' },
  AMBIGUOUS_FIELD_SELECTION: { status: 400, text: 'field_list and template_id together.' },
  UNSUPPORTED_INPUT_COMPRESSION: { status: 400, text: 'gzip with avro.' },
  NOT_A_MATCHED_UPLOAD: { status: 400, text: 'The segment is not a matched upload.' },
  FILE_NOT_YET_UPLOADED: { status: 409, text: 'Analysis or confirmation before the file was uploaded.' },
  NO_STAGED_UPLOAD: { status: 409, text: 'No staged upload to confirm or cancel.' },
  INVALID_FILE: { status: 422, text: 'The uploaded file cannot be read in the declared format.' },
  FILE_TOO_LARGE_UNCOMPRESSED: {
    status: 413,
    text: 'An uploaded shard expands past the uncompressed size limit (UPLOAD_MAX_UNCOMPRESSED_BYTES).',
  },
  LINE_TOO_LONG: { status: 422, text: 'An uploaded shard has a line or CSV record longer than the limit (UPLOAD_MAX_LINE_BYTES).' },
  INVALID_COLUMN_MAPPING: { status: 400, text: 'A column mapping names an unknown column or attribute.' },
  STAGING_COPY_FAILED: { status: 500, text: 'Moving a staged upload into place failed; retry.' },
  UPLOAD_URL_INVALID: { status: 403, text: 'The upload URL signature does not verify.' },
  UPLOAD_URL_EXPIRED: { status: 403, text: 'The upload URL is past its expiry.' },
  UPLOAD_SUPERSEDED: { status: 409, text: 'A newer upload version replaced this one.' },
  UPLOAD_ALREADY_RECEIVED: { status: 409, text: 'This shard was already uploaded and resolution started.' },
  UPLOAD_TARGET_GONE: { status: 410, text: 'The segment behind the upload URL was deleted.' },

  // Webhooks
  INVALID_WEBHOOK_URL: { status: 400, text: 'A webhook URL the outbound-target policy refuses.' },
  WEBHOOK_SUBSCRIPTION_NOT_FOUND: { status: 404, text: 'No such webhook subscription.' },
  WEBHOOK_DELIVERY_NOT_FOUND: { status: 404, text: 'No such webhook delivery.' },
  WEBHOOK_URL_NOT_SET: { status: 409, text: 'The organization webhook URL is not set.' },
  DELIVERY_IN_PROGRESS: { status: 409, text: 'The webhook delivery is still being attempted.' },
  SUBSCRIPTION_DELETED: { status: 409, text: 'The subscription of this webhook delivery was deleted.' },
  SUBSCRIPTION_DISABLED: { status: 409, text: 'The subscription is disabled (its endpoint answered 410 Gone).' },

  // Deliveries
  DELIVERY_NOT_FOUND: { status: 404, text: 'No such delivery of this audience.' },
  DESTINATION_NOT_FOUND: { status: 404, text: 'No such delivery destination in the organization.' },
  DESTINATION_ID_REQUIRED: { status: 400, text: 'An sftp or s3 delivery names the configured destination in destination_id.' },
  DESTINATION_KIND_MISMATCH: { status: 400, text: 'destination_id names a destination of another kind than `destination`.' },
  INVALID_DESTINATION_CONFIG: { status: 400, text: 'A destination configuration or its credentials are not valid.' },
  DESTINATION_BLOCKED: { status: 400, text: 'The destination host is refused by the outbound-target policy.' },
  DESTINATION_UNREACHABLE: { status: 502, text: 'The destination could not be reached (DNS, connection, handshake).' },
  DESTINATION_AUTH_FAILED: { status: 502, text: 'The destination refused the credentials.' },
  DESTINATION_WRITE_FAILED: { status: 502, text: 'The destination refused the write (missing folder or bucket, no permission).' },
  QUOTE_NOT_FOUND: { status: 404, text: 'No such delivery quote for this audience.' },
  QUOTE_EXPIRED: { status: 409, text: 'The delivery quote has expired; ask for a new one.' },
  QUOTE_MISMATCH: { status: 409, text: 'The quote was made for another selection than this delivery request.' },
  MAX_COST_EXCEEDED: { status: 409, text: 'The estimated cost is above the max_cost of the request.' },
  DOWNLOAD_URL_INVALID: { status: 403, text: 'A download URL whose signature does not verify.' },
  DOWNLOAD_URL_EXPIRED: { status: 403, text: 'A download URL past its expiry.' },
  DOWNLOAD_GONE: { status: 410, text: 'The delivered files are no longer available.' },

  // Keys
  API_KEY_NOT_FOUND: { status: 404, text: 'No such API key.' },
  SCOPE_NOT_HELD: { status: 403, text: 'A key may only grant scopes its creator holds.' },

  // People and OAuth
  USER_NOT_FOUND: { status: 404, text: 'No such user in the organization.' },
  USER_ALREADY_MEMBER: { status: 409, text: 'A user with this email already belongs to the organization.' },
  OAUTH_GRANT_NOT_FOUND: { status: 404, text: 'No such OAuth grant in the organization.' },

  // Billing and account
  BILLING_INSUFFICIENT_BALANCE: { status: 402, text: 'The prepaid balance cannot cover the request; nothing was started.' },
  PARENT_BILLED_ORGANIZATION: { status: 403, text: 'The organization is billed through its parent (agency) organization.' },
  ENTERPRISE_CONTRACT_MANAGED: { status: 409, text: 'Enterprise contract terms are managed by platform admins.' },
  REQUEST_ID_CONFLICT: { status: 409, text: 'The request_id was used before with a different request.' },
  BILLING_OWNER_REQUIRED: { status: 403, text: 'Only owners of the organization may change this billing setting.' },
  PREPAID_BILLING_REQUIRED: { status: 409, text: 'Only prepaid organizations have this setting.' },
  PAYMENT_METHOD_REQUIRED: { status: 422, text: 'No ready payment method; add one through the payment-method portal.' },
  BILLING_ADDRESS_REQUIRED: { status: 422, text: 'No billing address; add one through the payment-method portal.' },
  PAYMENT_PROVIDER_FAILED: { status: 502, text: 'The payment provider did not answer as expected; retry later.' },

  // Outbound integrations
  PROVIDER_NOT_AVAILABLE: {
    status: 404,
    text: 'The provider is not one this service connects to, or is not configured on this deployment.',
  },
  CONNECTION_NOT_FOUND: { status: 404, text: 'The organization has no live connection to this provider.' },
  CONNECTION_EXISTS: { status: 409, text: 'The organization is already connected to this provider; disconnect first.' },
  CONNECTION_ACCOUNT_IN_USE: {
    status: 409,
    text: 'This provider account is connected to another organization; it must be disconnected there first.',
  },
  INTEGRATION_AUTHORIZATION_INVALID: {
    status: 400,
    text: 'The OAuth state is unknown, expired or for another organization or provider, or the provider refused the code.',
  },
  PROVIDER_CLEANUP_FAILED: { status: 502, text: 'The provider cleanup of app_data_policy remove failed; the connection stays connected.' },
  PROVIDER_UNAVAILABLE: { status: 502, text: 'The provider did not answer as expected; retry later.' },
  INTEGRATION_RUN_NOT_FOUND: { status: 404, text: 'The integration run id resolves to nothing visible to the caller.' },
  INTEGRATION_RUN_OUTPUT_UNAVAILABLE: {
    status: 409,
    text: 'The run has no such output: only a completed file_enrichment run has a file, only a completed ingest run has records.',
  },

  // Agent tasks (A2A)
  TASK_INTERRUPTED: {
    status: 503,
    text: 'The service stopped while it was running the operation of this agent task; send the message again.',
  },
  TASK_WORK_FAILED: {
    status: 422,
    text: 'The long work an agent task started (a delivery, a file match, a model segment) ended in failure; the message says why.',
  },
  INTEGRATION_EXECUTION_KEY_NOT_ALLOWED: {
    status: 403,
    text: 'X-Integration-Execution-Key is accepted only with an OAuth access token of a pre-registered confidential partner client.',
  },
  INVALID_INTEGRATION_EXECUTION_KEY: {
    status: 400,
    text: 'An X-Integration-Execution-Key header that is not 8-200 characters of A-Z a-z 0-9 . _ : -.',
  },
  INTEGRATION_COLLECTION_NOT_FOUND: { status: 404, text: 'The integration match collection id resolves to nothing in the organization.' },
  INVALID_COLLECTION_FILTER: {
    status: 400,
    text: 'The integration collection filter is not valid (boundary_at_from after boundary_at_to).',
  },
  INTEGRATION_COLLECTION_SELECTION_EMPTY: { status: 422, text: 'The collection filter selects no captured identity; nothing was created.' },

  // Server
  INTERNAL_ERROR: { status: 500, text: 'An internal error; logged with the request id.' },
} as const satisfies Record<string, { status: number; text: string; outage?: true }>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** The HTTP status of a code. */
export const statusOf = (code: ErrorCode): number => ERROR_CODES[code].status;
/** Whether a code is an expected outage (a 5xx that is not a failure of ours). */
export const isOutage = (code: ErrorCode): boolean => 'outage' in ERROR_CODES[code];

export const isErrorCode = (code: string): code is ErrorCode => Object.hasOwn(ERROR_CODES, code);
