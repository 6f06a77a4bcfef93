import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CommonErrors, DomainError, isDomainError, type ErrorIssue } from '../core/errors.ts';
import { isErrorCode, isOutage, type ErrorCode } from '../core/error-codes.ts';
import { isUnreadableBody } from './body.ts';
import { JSONRPC, jsonRpcCodeOf } from './error-jsonrpc.ts';
import { HTTP_STATUS } from './error-status.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The protocol whose error shape the route's refusals take when they happen before its handler (an
     * unreadable body, a framework refusal) or escape it: REST's section 7 envelope when unset.
     */
    protocol?: 'oauth' | 'jsonrpc';
  }
}

interface AjvIssue {
  instancePath?: string;
  message?: string;
  keyword?: string;
  params?: Record<string, unknown>;
}

function jsonPath(context: string | undefined, instancePath = ''): string {
  const root = context === 'body' || !context ? '$' : `$${context}`;
  return (
    root +
    instancePath
      .split('/')
      .filter(Boolean)
      .map((p) => (/^\d+$/.test(p) ? `[${p}]` : `.${p}`))
      .join('')
  );
}

/** Schema validation errors become 400 INVALID_REQUEST with one issue per problem. */
function validationError(error: FastifyError): DomainError {
  const context = (error as { validationContext?: string }).validationContext;
  const issues: ErrorIssue[] = ((error.validation ?? []) as AjvIssue[]).map((v) => {
    const extra = v.params?.additionalProperty ?? v.params?.missingProperty;
    const path = jsonPath(context, v.instancePath) + (extra ? `.${String(extra)}` : '');
    const allowed = v.params?.allowedValues as unknown[] | undefined;
    return {
      path,
      code: v.keyword === 'enum' ? 'INVALID_ENUM_VALUE' : 'INVALID_VALUE',
      message: extra && v.keyword === 'additionalProperties' ? `unknown property "${String(extra)}"` : (v.message ?? 'invalid value'),
      suggestions: allowed ? allowed.map(String) : [],
    };
  });
  const first = issues[0];
  const summary = first ? `${first.path}: ${first.message}` : error.message;
  return CommonErrors.invalidRequest(`Invalid request: ${summary}`, issues);
}

/** Fastify's own request errors, by code, as domain errors with a next step. */
const FASTIFY_ERRORS: Record<string, (e: FastifyError) => DomainError> = {
  FST_ERR_CTP_INVALID_JSON_BODY: (e) =>
    new DomainError('INVALID_JSON', `The request body is not valid JSON: ${e.message}`, {
      nextStep: 'Send a well-formed JSON body with Content-Type: application/json.',
    }),
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () =>
    new DomainError('UNSUPPORTED_MEDIA_TYPE', 'This Content-Type is not accepted here; send application/json.', {
      nextStep: 'Send the body as JSON with Content-Type: application/json.',
    }),
  FST_ERR_CTP_BODY_TOO_LARGE: () =>
    new DomainError('PAYLOAD_TOO_LARGE', 'The request body is too large.', {
      nextStep: 'Send a smaller body; large files go through the signed upload URL.',
    }),
};

/** Maps anything thrown to a domain error; unknown errors become a 500 that shows no internals. */
export function toDomainError(error: unknown): DomainError {
  if (isDomainError(error)) return error;
  const fe = error as FastifyError;
  if (fe?.validation) return validationError(fe);
  const known = fe?.code ? FASTIFY_ERRORS[fe.code] : undefined;
  if (known) return known(fe);
  if (fe?.name === 'SyntaxError' && fe?.statusCode === 400) return FASTIFY_ERRORS.FST_ERR_CTP_INVALID_JSON_BODY!(fe);
  if (typeof fe?.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    return CommonErrors.invalidRequest(`The request was refused: ${fe.message}`);
  }
  return CommonErrors.internal();
}

export const statusOf = (error: DomainError) => HTTP_STATUS[error.code as ErrorCode] ?? 500;

export function envelope(error: DomainError, requestId: string): Record<string, unknown> {
  return {
    ...error.details,
    ...(error.retryAfterSeconds !== undefined ? { retry_after_seconds: error.retryAfterSeconds } : {}),
    error: error.code,
    code: error.code,
    message: error.message,
    request_id: requestId,
    ...(error.nextStep ? { next_step: error.nextStep } : {}),
    ...(error.issues ? { issues: error.issues } : {}),
  };
}

/**
 * RFC 6749 section 5.2 (the authorization server's endpoints): a request it cannot read is 400
 * invalid_request; throttling and server failures keep their status.
 */
function oauthError(error: DomainError, status: number, requestId: string) {
  const code =
    status === 503 ? 'temporarily_unavailable' : status >= 500 ? 'server_error' : status === 429 ? 'slow_down' : 'invalid_request';
  return {
    status: status >= 500 || status === 429 ? status : 400,
    body: { error: code, error_description: error.message, request_id: requestId },
  };
}

/** JSON-RPC 2.0: no request object was read, so the id is null; the section 7 envelope rides in `data`. */
function jsonRpcError(error: DomainError, status: number, requestId: string) {
  const parse = isUnreadableBody(error);
  return {
    status,
    body: {
      jsonrpc: '2.0',
      id: null,
      error: {
        code: parse ? JSONRPC.PARSE_ERROR : jsonRpcCodeOf(error.code as ErrorCode),
        message: parse ? `Parse error: ${error.message}` : error.message,
        data: envelope(error, requestId),
      },
    },
  };
}

/** Renders a refusal in the route's protocol (config.protocol), REST's envelope by default. */
export function sendError(request: FastifyRequest, reply: FastifyReply, error: DomainError): FastifyReply {
  if (error.retryAfterSeconds !== undefined) reply.header('retry-after', String(error.retryAfterSeconds));
  const status = statusOf(error);
  const protocol = request.routeOptions?.config?.protocol;
  const shaped =
    protocol === 'oauth'
      ? oauthError(error, status, request.id)
      : protocol === 'jsonrpc'
        ? jsonRpcError(error, status, request.id)
        : { status, body: envelope(error, request.id) };
  if (protocol === 'oauth') reply.header('cache-control', 'no-store');
  return reply.status(shaped.status).type('application/json').send(shaped.body);
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => {
    const domainError = toDomainError(error);
    const status = statusOf(domainError);
    const fields = { code: domainError.code, status, route: request.routeOptions.url, org_id: request.principal?.orgId };
    // Outages the service expects while it runs (a graph still loading, an upstream down): no stack trace.
    if (status >= 500 && !(isErrorCode(domainError.code) && isOutage(domainError.code)))
      request.log.error({ ...fields, err: error }, 'request failed');
    else if (status >= 500)
      request.log.warn({ ...fields, cause: (domainError.cause as Error | undefined)?.message }, 'request refused: temporarily unavailable');
    else request.log.info(fields, 'request refused');
    return sendError(request, reply, domainError);
  });
  app.setNotFoundHandler((request, reply) =>
    sendError(
      request,
      reply,
      new DomainError('NOT_FOUND', `No route ${request.method} ${request.url.split('?')[0]}.`, {
        nextStep: 'See GET /v1/openapi.json for the routes this service offers.',
      }),
    ),
  );
}
