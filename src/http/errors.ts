/**
 * One error type for the whole service. Every failure a client can see is an AppError with a stable
 * machine-readable `code`; the error handler renders it in the envelope of spec section 7.
 */

export interface ErrorIssue {
  path: string;
  code: string;
  message: string;
  suggestions: string[];
}

export interface AppErrorOptions {
  nextStep?: string;
  issues?: ErrorIssue[];
  /** Extra top-level envelope fields (e.g. `retry_after_seconds`, `current_campaign_id`). */
  details?: Record<string, unknown>;
  /** Response headers to set (e.g. `Retry-After`). */
  headers?: Record<string, string>;
  cause?: unknown;
}

export class AppError extends Error {
  readonly nextStep?: string;
  readonly issues?: ErrorIssue[];
  readonly details?: Record<string, unknown>;
  readonly headers?: Record<string, string>;

  constructor(
    readonly code: string,
    readonly status: number,
    message: string,
    options: AppErrorOptions = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'AppError';
    this.nextStep = options.nextStep;
    this.issues = options.issues;
    this.details = options.details;
    this.headers = options.headers;
  }
}

/** Factories for the codes used in more than one place. Endpoint-specific codes live with their module. */
export const Errors = {
  invalidRequest: (message: string, issues?: ErrorIssue[]) =>
    new AppError('INVALID_REQUEST', 400, message, { issues, nextStep: 'Correct the request as described and send it again.' }),
  invalidJson: (message: string) =>
    new AppError('INVALID_JSON', 400, `The request body is not valid JSON: ${message}`, {
      nextStep: 'Send a well-formed JSON body with Content-Type: application/json.',
    }),
  tokenInvalid: (message = 'The bearer token is missing, malformed or revoked.') =>
    new AppError('TOKEN_INVALID', 401, message, {
      nextStep: 'Exchange your API key at POST /v1/auth/token and send Authorization: Bearer <access_token>.',
    }),
  tokenExpired: () =>
    new AppError('TOKEN_EXPIRED', 401, 'The bearer token has expired.', {
      nextStep: 'Get a new token (POST /v1/auth/token with your API key) and retry.',
    }),
  scopeRequired: (scope: string) =>
    new AppError('SCOPE_REQUIRED', 403, `This operation requires the "${scope}" scope.`, {
      details: { required_scope: scope },
      nextStep: `Use a key or token granted the "${scope}" scope.`,
    }),
  forbidden: (message: string) => new AppError('FORBIDDEN', 403, message),
  notFound: (what: string, code = 'NOT_FOUND') =>
    new AppError(code, 404, `${what} was not found.`, { nextStep: 'Check the id; resources of other organizations are not visible.' }),
  conflict: (code: string, message: string, details?: Record<string, unknown>) => new AppError(code, 409, message, { details }),
  rateLimited: (limit: number, retryAfterSeconds: number, tier: string) =>
    new AppError('rate_limit_exceeded', 429, `Too many requests: ${limit} requests per minute for tier ${tier}.`, {
      details: { retry_after_seconds: retryAfterSeconds },
      headers: { 'retry-after': String(retryAfterSeconds) },
      nextStep: `Wait ${retryAfterSeconds} seconds before retrying, or upgrade the plan for a higher limit.`,
    }),
  idempotencyConflict: () =>
    new AppError('IDEMPOTENCY_KEY_CONFLICT', 409, 'This Idempotency-Key was already used with a different request body.', {
      nextStep: 'Use a new Idempotency-Key for a different request, or resend the original body.',
    }),
  internal: () =>
    new AppError('INTERNAL_ERROR', 500, 'An internal error occurred. It has been logged with this request id.', {
      nextStep: 'Retry later; if it persists, contact support with the request_id.',
    }),
  unavailable: (message: string, nextStep = 'Retry shortly.') => new AppError('SERVICE_UNAVAILABLE', 503, message, { nextStep }),
};
