/**
 * Domain errors: what went wrong, in the service's own terms, with no transport in sight. Every failure
 * a client can see is a DomainError with a registered code (./error-codes.ts); the HTTP adapter maps the
 * code to a status and renders the envelope of spec section 7, and the MCP and A2A adapters map the same
 * codes to their own error forms.
 */
import { ERROR_CODES, type ErrorCode } from './error-codes.ts';

export type { ErrorCode } from './error-codes.ts';

/** One problem inside a request (spec 7 `issues[]`). */
export interface ErrorIssue {
  /** JSON path of the invalid field or value, e.g. `$.filters[0].field`. */
  path: string;
  code: string;
  message: string;
  suggestions: string[];
}

export interface DomainErrorOptions {
  /** A public corrective action that works from where the caller stands. */
  nextStep?: string;
  issues?: ErrorIssue[];
  /** Extra top-level envelope fields (e.g. `current_campaign_id`, `privacy_floor`). */
  details?: Record<string, unknown>;
  /** For throttling: seconds until a retry can succeed (also sent as `Retry-After`). */
  retryAfterSeconds?: number;
  cause?: unknown;
}

export class DomainError extends Error {
  readonly nextStep?: string;
  readonly issues?: ErrorIssue[];
  readonly details?: Record<string, unknown>;
  readonly retryAfterSeconds?: number;

  /** `message`: what happened, specifically; without one, the code's default text from the registry. */
  constructor(
    readonly code: ErrorCode,
    message?: string,
    options: DomainErrorOptions = {},
  ) {
    super(message ?? ERROR_CODES[code].text, { cause: options.cause });
    this.name = 'DomainError';
    this.nextStep = options.nextStep;
    this.issues = options.issues;
    this.details = options.details;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

export const isDomainError = (e: unknown): e is DomainError => e instanceof DomainError;

/** Factories for codes raised by more than one area. Area-specific codes live with their area. */
export const CommonErrors = {
  invalidRequest: (message: string, issues?: ErrorIssue[], nextStep = 'Correct the request as described and send it again.') =>
    new DomainError('INVALID_REQUEST', message, { issues, nextStep }),
  tokenInvalid: (message = 'The bearer token is missing, malformed or revoked.') =>
    new DomainError('TOKEN_INVALID', message, {
      nextStep: 'Exchange your API key at POST /v1/auth/token and send Authorization: Bearer <access_token>.',
    }),
  tokenExpired: () =>
    new DomainError('TOKEN_EXPIRED', 'The bearer token has expired.', {
      nextStep: 'Get a new token (POST /v1/auth/token with your API key) and retry.',
    }),
  scopeRequired: (scope: string) =>
    new DomainError('SCOPE_REQUIRED', `This operation requires the "${scope}" scope.`, {
      details: { required_scope: scope },
      nextStep: `Use a key or token granted the "${scope}" scope.`,
    }),
  notFound: (what: string) =>
    new DomainError('NOT_FOUND', `${what} was not found.`, { nextStep: 'Check the id; resources of other organizations are not visible.' }),
  idempotencyConflict: () =>
    new DomainError('IDEMPOTENCY_KEY_CONFLICT', 'This Idempotency-Key was already used with a different request body.', {
      nextStep: 'Use a new Idempotency-Key for a different request, or resend the original body.',
    }),
  internal: () =>
    new DomainError('INTERNAL_ERROR', 'An internal error occurred. It has been logged with this request id.', {
      nextStep: 'Retry later; if it persists, contact support with the request_id.',
    }),
  unavailable: (message: string, nextStep = 'Retry shortly.') => new DomainError('SERVICE_UNAVAILABLE', message, { nextStep }),
  /** A warehouse statement stopped at its timeout (WAREHOUSE_STATEMENT_TIMEOUT_MS); `nextStep` says what to narrow. */
  queryTimeout: (timeoutMs: number, o: { cause?: unknown; nextStep: string; details?: Record<string, unknown> }) =>
    new DomainError(
      'QUERY_TIMEOUT',
      `The warehouse statement took longer than ${Math.max(1, Math.round(timeoutMs / 1000))} s and was stopped.`,
      o,
    ),
};
