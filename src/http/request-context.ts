import { AsyncLocalStorage } from 'node:async_hooks';
import type { FastifyInstance } from 'fastify';
import { randomBase62 } from '../lib/ids.ts';

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{8,128}$/;

// Request ids need to be unique, not secret: a random per-process prefix and a counter are enough,
// and cost nothing on the hot path.
const PROCESS_PREFIX = randomBase62(10);
let counter = 0;

/** A request id for every request: the caller's `X-Request-Id` when sane, else a new one. */
export function genRequestId(req: { headers: Record<string, string | string[] | undefined> }): string {
  const given = req.headers['x-request-id'];
  if (typeof given === 'string' && CLIENT_REQUEST_ID.test(given)) return given;
  counter = (counter + 1) % 2_176_782_336; // 36^6
  return `req_${PROCESS_PREFIX}${counter.toString(36).padStart(6, '0')}`;
}

/**
 * The request whose work is running, for failures no handler caught (an uncaught exception or unhandled
 * rejection is reported with the request id it arose in: src/runtime.ts).
 */
const requestScope = new AsyncLocalStorage<{ requestId: string }>();
export const currentRequestId = (): string | undefined => requestScope.getStore()?.requestId;

/**
 * Every response carries the request id; while the app drains, responses also tell keep-alive
 * clients to close so shutdown finishes as soon as in-flight requests do. Callback-style hook: it
 * runs on every request, and needs no promise.
 */
export function registerRequestContext(app: FastifyInstance, isShuttingDown: () => boolean): void {
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    // The rest of the request's lifecycle, and everything it starts, runs inside its scope.
    requestScope.run({ requestId: request.id }, done);
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (isShuttingDown()) reply.header('connection', 'close');
    done(null, payload);
  });
}
