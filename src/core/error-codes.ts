/**
 * Every machine-readable error code the service can answer with, and what it means. Protocol-free:
 * the HTTP status of each code lives in src/http/error-status.ts (and the JSON-RPC mapping beside it),
 * so a code added here without a status fails to compile there.
 *
 * Spelling follows spec section 7 (upper snake case, except the two throttling codes it writes in lower case).
 */
export const ERROR_CODES = {
  // Requests
  INVALID_REQUEST: 'The request is malformed or a field is out of range.',
  INVALID_JSON: 'The body is not well-formed JSON.',
  UNSUPPORTED_MEDIA_TYPE: 'The Content-Type (or Content-Encoding) is not accepted here.',
  PAYLOAD_TOO_LARGE: 'The body is larger than the operation accepts.',
  URI_TOO_LONG: 'The request line is too long.',
  HEADERS_TOO_LARGE: 'The request headers are too large.',
  NOT_FOUND: 'No such route, or a resource that is not visible to the caller.',
  INVALID_CURSOR: 'A paging cursor that this list did not issue.',
  CONFLICTING_FILTERS: 'Two list filters that cannot be combined.',
  INVALID_IDEMPOTENCY_KEY: 'An Idempotency-Key header that is not 1-255 printable characters.',
  IDEMPOTENCY_KEY_CONFLICT: 'The Idempotency-Key was used before with a different body.',
  IDEMPOTENT_REQUEST_IN_PROGRESS: 'A request with the same Idempotency-Key is still running.',
  LIMIT_EXCEEDED: 'A request holds more conditions, groups or list items than an operation accepts.',

  // Authentication and authorization
  TOKEN_INVALID: 'The bearer token is missing, malformed or revoked.',
  TOKEN_EXPIRED: 'The bearer token is past its lifetime.',
  SCOPE_REQUIRED: 'The token lacks the scope the operation requires.',
  OWNER_OR_ADMIN_REQUIRED: 'Only organization owners and admins may do this.',
  FORBIDDEN: 'The caller may not do this.',

  // Throttling
  rate_limit_exceeded: 'Too many requests per minute for the tier.',
  compute_limit_exceeded: 'The organization query-scan budget for this hour is spent.',

  // Discovery and the graph
  INVALID_FILTER: 'Unknown field, disallowed operator or invalid value in filters.',
  INVALID_GROUP_BY: 'group_by names a field that cannot be grouped by.',
  INVALID_LOOKUP_FIELDS: 'Lookup fields that are unknown, repeated or personally identifying.',
  AMBIGUOUS_INPUT: 'More than one discovery input form.',
  NO_INPUT_SPECIFIED: 'No discovery input form.',
  AGGREGATION_FLOOR_NOT_MET: 'The result is below the privacy minimum.',
  FILTER_CATALOG_UNAVAILABLE: 'The field catalog cannot be read; nothing was created.',
  DATA_RELEASE_UNAVAILABLE: 'No data release has been published yet.',
  BQ_TABLE_MISSING: 'A data set behind the request is missing (expired, or an upload never finished).',
  SERVICE_UNAVAILABLE: 'The service is temporarily unable to answer.',
  QUERY_TIMEOUT: 'A warehouse statement ran past its time limit and was stopped.',

  // Segments, audiences, campaigns
  SEGMENT_NOT_FOUND: 'The segment id resolves to nothing visible to the caller.',
  AUDIENCE_NOT_FOUND: 'The audience id resolves to nothing visible to the caller.',
  CAMPAIGN_NOT_FOUND: 'The campaign id resolves to nothing in the organization.',
  AUDIENCE_NOT_LINKED: 'The audience is not linked to that campaign.',
  INVALID_CAMPAIGN_ID: 'An unknown campaign id; nothing was created.',
  RECORD_LIMIT_UNSUPPORTED: 'record_limit on a subtype other than filter.',
  CAP_GEOGRAPHY_REQUIRED: 'record_limit without narrowing geography on every OR branch.',
  UNKNOWN_SUBTYPE: 'A subtype this operation does not handle.',
  MISSING_SEGMENTS: 'An audience without an included segment.',
  SEGMENT_ID_REQUIRED: 'Audience refresh without segment_id.',
  SEGMENT_NOT_A_MEMBER: 'Audience refresh of a segment that is not a member.',
  SEGMENT_ARCHIVED: 'The segment is archived.',
  SEGMENT_IN_USE: 'The segment is used by active audiences.',
  SHARED_SOURCE_DATA: 'A matched duplicate shares its source data and cannot be refreshed alone.',
  AUDIENCE_ALREADY_LINKED: 'The audience belongs to another campaign.',
  AUDIENCE_EXPIRED: 'The audience version is past its expiry; refresh it first.',
  AUDIENCE_PENDING: 'A member segment of the audience is still processing.',
  INVALID_STATUS_TRANSITION: 'The state table does not allow this move.',
  MISSING_POSITIVE_CLASS_ID: 'Refresh of a legacy propensity segment without a positive class.',
  WORKFLOW_LAUNCH_FAILED: 'A workflow could not be launched; retry.',

  // Similarity and propensity workflows
  WORKFLOW_NOT_FOUND: 'The workflow run id resolves to nothing visible to the caller.',
  WORKFLOW_NOT_AWAITING_REVIEW: 'The workflow run is not paused at a review gate.',
  GATE_NOT_OPEN: 'The gate_id is not the review gate the run is paused at.',
  INVALID_GATE_RESPONSE: 'A review gate response this gate does not accept.',
  GENERATION_METADATA_NOT_FOUND: 'generation_metadata_id names no completed run of this subtype in the organization.',
  SEED_SEGMENT_NOT_READY: 'The seed or positive-class segment has no members yet (pending, failed or archived).',
  INVALID_SEED_DESCRIPTION: 'The seed description yields no usable filter.',
  INVALID_EXCLUDED_COLUMNS: 'excluded_columns names a column that is not a catalog field.',

  // Matching and file matching
  TOO_MANY_RECORDS: 'More records than a micro-batch accepts.',
  DUPLICATE_ROW_ID: 'Two records with one row_id.',
  INVALID_ROW_ID: 'A row_id that is blank.',
  UNKNOWN_FIELD: 'A field_list entry that is not in the catalog.',
  AMBIGUOUS_FIELD_SELECTION: 'field_list and template_id together.',
  UNSUPPORTED_INPUT_COMPRESSION: 'gzip with avro.',
  NOT_A_MATCHED_UPLOAD: 'The segment is not a matched upload.',
  FILE_NOT_YET_UPLOADED: 'Analysis or confirmation before the file was uploaded.',
  NO_STAGED_UPLOAD: 'No staged upload to confirm or cancel.',
  INVALID_FILE: 'The uploaded file cannot be read in the declared format.',
  FILE_TOO_LARGE_UNCOMPRESSED: 'An uploaded shard expands past the uncompressed size limit (UPLOAD_MAX_UNCOMPRESSED_BYTES).',
  LINE_TOO_LONG: 'An uploaded shard has a line or CSV record longer than the limit (UPLOAD_MAX_LINE_BYTES).',
  INVALID_COLUMN_MAPPING: 'A column mapping names an unknown column or attribute.',
  STAGING_COPY_FAILED: 'Moving a staged upload into place failed; retry.',
  UPLOAD_URL_INVALID: 'The upload URL signature does not verify.',
  UPLOAD_URL_EXPIRED: 'The upload URL is past its expiry.',
  UPLOAD_SUPERSEDED: 'A newer upload version replaced this one.',
  UPLOAD_ALREADY_RECEIVED: 'This shard was already uploaded and resolution started.',
  UPLOAD_TARGET_GONE: 'The segment behind the upload URL was deleted.',

  // Webhooks
  INVALID_WEBHOOK_URL: 'A webhook URL the outbound-target policy refuses.',
  WEBHOOK_SUBSCRIPTION_NOT_FOUND: 'No such webhook subscription.',
  WEBHOOK_DELIVERY_NOT_FOUND: 'No such webhook delivery.',
  WEBHOOK_URL_NOT_SET: 'The organization webhook URL is not set.',
  DELIVERY_IN_PROGRESS: 'The webhook delivery is still being attempted.',
  SUBSCRIPTION_DELETED: 'The subscription of this webhook delivery was deleted.',
  SUBSCRIPTION_DISABLED: 'The subscription is disabled (its endpoint answered 410 Gone).',

  // Deliveries
  DELIVERY_NOT_FOUND: 'No such delivery of this audience.',
  DESTINATION_NOT_FOUND: 'No such delivery destination in the organization.',
  DESTINATION_ID_REQUIRED: 'An sftp or s3 delivery names the configured destination in destination_id.',
  DESTINATION_KIND_MISMATCH: 'destination_id names a destination of another kind than `destination`.',
  INVALID_DESTINATION_CONFIG: 'A destination configuration or its credentials are not valid.',
  DESTINATION_BLOCKED: 'The destination host is refused by the outbound-target policy.',
  DESTINATION_UNREACHABLE: 'The destination could not be reached (DNS, connection, handshake).',
  DESTINATION_AUTH_FAILED: 'The destination refused the credentials.',
  DESTINATION_WRITE_FAILED: 'The destination refused the write (missing folder or bucket, no permission).',
  QUOTE_NOT_FOUND: 'No such delivery quote for this audience.',
  QUOTE_EXPIRED: 'The delivery quote has expired; ask for a new one.',
  QUOTE_MISMATCH: 'The quote was made for another selection than this delivery request.',
  MAX_COST_EXCEEDED: 'The estimated cost is above the max_cost of the request.',
  DOWNLOAD_URL_INVALID: 'A download URL whose signature does not verify.',
  DOWNLOAD_URL_EXPIRED: 'A download URL past its expiry.',
  DOWNLOAD_GONE: 'The delivered files are no longer available.',

  // Keys
  API_KEY_NOT_FOUND: 'No such API key.',
  SCOPE_NOT_HELD: 'A key may only grant scopes its creator holds.',

  // People and OAuth
  USER_NOT_FOUND: 'No such user in the organization.',
  USER_ALREADY_MEMBER: 'A user with this email already belongs to the organization.',
  OAUTH_GRANT_NOT_FOUND: 'No such OAuth grant in the organization.',

  // Billing and account
  BILLING_INSUFFICIENT_BALANCE: 'The prepaid balance cannot cover the request; nothing was started.',
  PARENT_BILLED_ORGANIZATION: 'The organization is billed through its parent (agency) organization.',
  ENTERPRISE_CONTRACT_MANAGED: 'Enterprise contract terms are managed by platform admins.',
  REQUEST_ID_CONFLICT: 'The request_id was used before with a different request.',
  BILLING_OWNER_REQUIRED: 'Only owners of the organization may change this billing setting.',
  PREPAID_BILLING_REQUIRED: 'Only prepaid organizations have this setting.',
  PAYMENT_METHOD_REQUIRED: 'No ready payment method; add one through the payment-method portal.',
  BILLING_ADDRESS_REQUIRED: 'No billing address; add one through the payment-method portal.',
  PAYMENT_PROVIDER_FAILED: 'The payment provider did not answer as expected; retry later.',

  // Outbound integrations
  PROVIDER_NOT_AVAILABLE: 'The provider is not one this service connects to, or is not configured on this deployment.',
  CONNECTION_NOT_FOUND: 'The organization has no live connection to this provider.',
  CONNECTION_EXISTS: 'The organization is already connected to this provider; disconnect first.',
  CONNECTION_ACCOUNT_IN_USE: 'This provider account is connected to another organization; it must be disconnected there first.',
  INTEGRATION_AUTHORIZATION_INVALID: 'The OAuth state is unknown, expired or for another organization or provider, or the provider refused the code.',
  PROVIDER_CLEANUP_FAILED: 'The provider cleanup of app_data_policy remove failed; the connection stays connected.',
  PROVIDER_UNAVAILABLE: 'The provider did not answer as expected; retry later.',
  INTEGRATION_RUN_NOT_FOUND: 'The integration run id resolves to nothing visible to the caller.',
  INTEGRATION_RUN_OUTPUT_UNAVAILABLE: 'The run has no such output: only a completed file_enrichment run has a file, only a completed ingest run has records.',

  // Agent tasks (A2A)
  TASK_INTERRUPTED: 'The service stopped while it was running the operation of this agent task; send the message again.',
  TASK_WORK_FAILED: 'The long work an agent task started (a delivery, a file match, a model segment) ended in failure; the message says why.',
  INTEGRATION_EXECUTION_KEY_NOT_ALLOWED: 'X-Integration-Execution-Key is accepted only with an OAuth access token of a pre-registered confidential partner client.',
  INVALID_INTEGRATION_EXECUTION_KEY: 'An X-Integration-Execution-Key header that is not 8-200 characters of A-Z a-z 0-9 . _ : -.',
  INTEGRATION_COLLECTION_NOT_FOUND: 'The integration match collection id resolves to nothing in the organization.',
  INVALID_COLLECTION_FILTER: 'The integration collection filter is not valid (boundary_at_from after boundary_at_to).',
  INTEGRATION_COLLECTION_SELECTION_EMPTY: 'The collection filter selects no captured identity; nothing was created.',

  // Server
  INTERNAL_ERROR: 'An internal error; logged with the request id.',
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export const isErrorCode = (code: string): code is ErrorCode => Object.hasOwn(ERROR_CODES, code);
