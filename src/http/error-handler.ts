import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, Errors, type ErrorIssue } from './errors.ts';

interface AjvIssue {
  instancePath?: string;
  message?: string;
  keyword?: string;
  params?: Record<string, unknown>;
}

function jsonPath(context: string | undefined, instancePath = ''): string {
  const root = context === 'body' || !context ? '$' : `$${context}`;
  return root + instancePath.split('/').filter(Boolean).map((p) => (/^\d+$/.test(p) ? `[${p}]` : `.${p}`)).join('');
}

/** Schema validation errors become 400 INVALID_REQUEST with one issue per problem. */
function validationError(error: FastifyError): AppError {
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
  return Errors.invalidRequest(`Invalid request: ${summary}`, issues);
}

/** Map anything thrown to an AppError; unknown errors become a 500 that shows no internals. */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const fe = error as FastifyError;
  if (fe?.validation) return validationError(fe);
  if (fe?.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || (fe?.name === 'SyntaxError' && fe?.statusCode === 400)) {
    return Errors.invalidJson(fe.message);
  }
  if (fe?.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') return Errors.invalidJson('the body is empty but Content-Type is application/json');
  if (fe?.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return new AppError('UNSUPPORTED_MEDIA_TYPE', 415, 'This Content-Type is not accepted here; send application/json.');
  }
  if (fe?.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return new AppError('PAYLOAD_TOO_LARGE', 413, 'The request body is too large.');
  if (typeof fe?.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    return new AppError('INVALID_REQUEST', fe.statusCode, fe.message);
  }
  return Errors.internal();
}

export function envelope(error: AppError, requestId: string): Record<string, unknown> {
  return {
    ...error.details,
    error: error.code,
    code: error.code,
    message: error.message,
    request_id: requestId,
    ...(error.nextStep ? { next_step: error.nextStep } : {}),
    ...(error.issues ? { issues: error.issues } : {}),
  };
}

export function sendError(request: FastifyRequest, reply: FastifyReply, error: AppError): FastifyReply {
  if (error.headers) reply.headers(error.headers);
  return reply.status(error.status).type('application/json').send(envelope(error, request.id));
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => {
    const appError = toAppError(error);
    if (appError.status >= 500) request.log.error({ err: error }, 'request failed');
    return sendError(request, reply, appError);
  });
  app.setNotFoundHandler((request, reply) =>
    sendError(
      request,
      reply,
      new AppError('NOT_FOUND', 404, `No route ${request.method} ${request.url.split('?')[0]}.`, {
        nextStep: 'See GET /v1/openapi.json for the routes this service offers.',
      }),
    ),
  );
}
