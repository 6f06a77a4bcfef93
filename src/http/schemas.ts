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

const STATUS_TEXT: Record<number, string> = {
  400: 'Invalid request',
  401: 'Missing, invalid or expired bearer token',
  402: 'Insufficient balance',
  403: 'Not allowed',
  404: 'Not found or not accessible to the organization',
  409: 'State conflict',
  410: 'Gone',
  413: 'Body too large',
  414: 'Request line too long',
  415: 'Unsupported media type',
  422: 'Valid request in a blocking resource state',
  429: 'Throttled',
  431: 'Headers too large',
  500: 'Internal error',
  502: 'Upstream failure',
  503: 'Temporarily unavailable',
};

/** Error responses of an operation, one per status, each naming the codes it can carry. */
export function errorResponseSchemas(byStatus: Map<number, string[]>): Record<number, TSchema> {
  const out: Record<number, TSchema> = {};
  for (const status of [...byStatus.keys()].sort()) {
    const codes = [...new Set(byStatus.get(status))];
    out[status] = Type.Unsafe({
      $ref: 'ErrorEnvelope#',
      description: `${STATUS_TEXT[status] ?? 'Error'}: ${codes.map((c) => `\`${c}\``).join(', ')}`,
    });
  }
  return out;
}
