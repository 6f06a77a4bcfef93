import { Type, type TSchema } from 'typebox';

/** The error envelope of spec section 7 (additional properties allowed, e.g. retry_after_seconds). */
export const ErrorIssueSchema = Type.Object({
  path: Type.String({ description: 'JSON path of the invalid field or value' }),
  code: Type.String(),
  message: Type.String(),
  suggestions: Type.Array(Type.String()),
});

export const ErrorEnvelopeSchema = Type.Object(
  {
    error: Type.String({ description: 'Stable machine-readable code' }),
    message: Type.String({ description: 'Human-readable explanation' }),
    code: Type.Optional(Type.String({ description: 'Alternate machine-readable code (same as error)' })),
    request_id: Type.String({ description: 'Opaque support id; also in the X-Request-Id header' }),
    next_step: Type.Optional(Type.String({ description: 'Public corrective action' })),
    issues: Type.Optional(Type.Array(ErrorIssueSchema)),
  },
  { $id: 'ErrorEnvelope', additionalProperties: true, description: 'Error envelope (spec section 7)' },
);

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid request',
  401: 'Missing, invalid (TOKEN_INVALID) or expired (TOKEN_EXPIRED) bearer token',
  402: 'Insufficient balance',
  403: 'Scope missing (SCOPE_REQUIRED) or role not allowed',
  404: 'Not found or not accessible to the organization',
  409: 'State conflict',
  413: 'Body too large',
  415: 'Unsupported media type',
  422: 'Valid request in a blocking resource state',
  429: 'Throttled (rate_limit_exceeded, compute_limit_exceeded)',
  500: 'Internal error',
  502: 'Upstream failure',
  503: 'Temporarily unavailable',
};

const errorRef = (status: number) => Type.Unsafe({ $ref: 'ErrorEnvelope#', description: ERROR_DESCRIPTIONS[status] ?? 'Error' });

/** Error responses for a route's schema. Authenticated routes always add 401, 403 and 429. */
export function errorResponses(statuses: number[], authenticated = true): Record<number, TSchema> {
  const all = new Set([...statuses, 500, ...(authenticated ? [401, 403, 429] : [])]);
  return Object.fromEntries([...all].sort().map((s) => [s, errorRef(s)]));
}

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
/** A date-time string in the document; handlers may return Date objects (serialized as ISO 8601). */
export const DateTime = (description?: string) =>
  Type.Unsafe<Date | string>({ type: 'string', format: 'date-time', ...(description ? { description } : {}) });
