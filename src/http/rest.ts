/**
 * The REST adapter: one Fastify route per operation declaration. It reads the declaration's binding
 * (method, path), access, schemas and error codes; the auth hook checks the access before the body is
 * read; the handler builds the operation context and input, runs Idempotency-Key handling when the
 * declaration opts in, and answers the declared status. No business rule lives here.
 */
import fs from 'node:fs';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { IsOptional, type TSchema } from 'typebox';
import { isFileBody, type Operation, type OperationContext } from '../core/operation.ts';
import { HTTP_STATUS } from './error-status.ts';
import type { IdempotencyService } from './idempotency/service.ts';
import { runOnce } from './idempotency/run-once.ts';
import { errorResponseSchemas } from './schemas.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The declaration behind the route (absent on routes that are not operations: docs, uploads' parser). */
    operation?: Operation;
  }
}

/** `/v1/segments/{id}` -> `/v1/segments/:id` */
export const fastifyPath = (path: string) => path.replace(/\{([^}]+)\}/g, ':$1');

/** The statuses an operation can answer with an error: its declared codes plus what its access implies. */
export function errorStatuses(op: Operation): Map<number, string[]> {
  const byStatus = new Map<number, string[]>();
  const add = (status: number, code: string) => byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  for (const code of op.errors) add(HTTP_STATUS[code], code);
  const takesInput = !!(op.input.body || op.input.query || op.input.params);
  if (takesInput && !byStatus.has(400)) add(400, 'INVALID_REQUEST');
  if (op.access !== 'public') {
    add(401, 'TOKEN_INVALID');
    add(401, 'TOKEN_EXPIRED');
    if (op.access !== 'authenticated') add(403, 'SCOPE_REQUIRED');
    add(429, 'rate_limit_exceeded');
  }
  add(500, 'INTERNAL_ERROR');
  return byStatus;
}

function responseSchemas(op: Operation): Record<number, TSchema> {
  return { ...errorResponseSchemas(errorStatuses(op)), ...op.responses };
}

export interface RestDeps {
  idempotency: IdempotencyService;
}

export function registerOperations(app: FastifyInstance, operations: readonly Operation[], deps: RestDeps): void {
  for (const op of operations) {
    if (op.rawBody) {
      // Its own context, so the pass-through body parser applies to this route alone.
      void app.register(async (scope) => {
        scope.removeAllContentTypeParsers();
        scope.addContentTypeParser('*', (_req, payload, done) => done(null, payload));
        route(scope, op, deps);
      });
    } else {
      route(app, op, deps);
    }
  }
}

function route(app: FastifyInstance, op: Operation, deps: RestDeps): void {
  app.route({
    method: op.method,
    url: fastifyPath(op.path),
    config: { access: op.access, operation: op },
    ...(op.bodyLimit ? { bodyLimit: op.bodyLimit } : {}),
    schema: {
      operationId: op.id,
      tags: op.tags,
      summary: op.summary,
      description: op.description,
      ...(op.access === 'public' ? { security: [] } : {}),
      ...(op.input.params ? { params: op.input.params } : {}),
      ...(op.input.query ? { querystring: op.input.query } : {}),
      ...(op.input.body ? { body: op.input.body } : {}),
      ...(op.input.headers ? { headers: op.input.headers } : {}),
      response: responseSchemas(op),
    },
    // An optional body (Type.Optional at the root) may be absent altogether: validate it as `{}`.
    ...(op.input.body && IsOptional(op.input.body)
      ? {
          preValidation: (request: FastifyRequest, _reply: FastifyReply, done: () => void) => {
            if (request.body === undefined) request.body = {};
            done();
          },
        }
      : {}),
    handler: (request, reply) => handle(op, request, reply, deps),
  });
}

function contextOf(request: FastifyRequest): OperationContext {
  return { caller: request.principal, requestId: request.id, log: request.log };
}

async function handle(op: Operation, request: FastifyRequest, reply: FastifyReply, deps: RestDeps) {
  const ctx = contextOf(request);
  const input = {
    params: (request.params ?? {}) as never,
    query: (request.query ?? {}) as never,
    body: (op.rawBody ? undefined : request.body) as never,
    headers: request.headers as never,
    ...(op.rawBody ? { raw: (request.body as NodeJS.ReadableStream | undefined) ?? request.raw } : {}),
  };
  const key = request.headers['idempotency-key'];
  const outcome = await runOnce(op as Operation, ctx, input as never, {
    service: deps.idempotency,
    key: typeof key === 'string' ? key : undefined,
    body: request.body,
  });
  if (outcome.replayed !== undefined) reply.header('idempotent-replayed', String(outcome.replayed));
  reply.status(outcome.statusCode);
  if (isFileBody(outcome.body)) {
    const f = outcome.body;
    reply
      .header('content-type', f.contentType)
      .header('content-length', String(f.bytes))
      .header('content-disposition', `attachment; filename="${f.fileName}"`);
    return reply.send(fs.createReadStream(f.path));
  }
  return outcome.statusCode === 204 ? reply.send() : outcome.body;
}
