/**
 * Hostile input answered in the envelope (docs/decisions/027-input-and-outbound-policy.md):
 * - strings the stores cannot keep or that mean nothing (NUL and other C0 control characters except tab,
 *   newline and carriage return; lone UTF-16 surrogates), in body keys and values, path ids and query
 *   values: 400 INVALID_REQUEST naming the place;
 * - bodies nested deeper than MAX_BODY_DEPTH: 400 before any validator or compiler recurses into them;
 * - Content-Encoding is decoded, or refused, in src/http/body.ts;
 * - Fastify's and Node's own refusals (a malformed percent-encoding, an over-long path parameter,
 *   over-large headers, an unparseable request) carry the envelope and a request_id too.
 */
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CommonErrors, DomainError } from '../core/errors.ts';
import type { Operation } from '../core/operation.ts';
import { envelope, sendError, statusOf } from './error-handler.ts';
import { genRequestId } from './request-context.ts';

/** Deeper than any declared schema needs (a filter tree is at most a few levels). */
export const MAX_BODY_DEPTH = 32;

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Why a string cannot be accepted, or null. */
export function badString(s: string): string | null {
  if (CONTROL.test(s)) return 'contains a control character (NUL or another C0 character other than tab, newline, carriage return)';
  if (LONE_SURROGATE.test(s)) return 'contains invalid UTF-16 (a lone surrogate)';
  return null;
}

const refuse = (path: string, why: string) =>
  CommonErrors.invalidRequest(`Invalid request: ${path} ${why}.`, [{ path, code: 'INVALID_VALUE', message: why, suggestions: [] }]);

const keyPath = (path: string, key: string) =>
  /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key.replace(/[^\x20-\x7e]/g, '?'))}]`;

/** Walks a parsed JSON value iteratively (no recursion, so depth itself cannot overflow the stack). */
export function checkValue(root: unknown, rootPath = '$'): void {
  const stack: { value: unknown; path: string; depth: number }[] = [{ value: root, path: rootPath, depth: 0 }];
  while (stack.length) {
    const { value, path, depth } = stack.pop()!;
    if (typeof value === 'string') {
      const why = badString(value);
      if (why) throw refuse(path, why);
    } else if (value !== null && typeof value === 'object') {
      if (depth >= MAX_BODY_DEPTH) throw refuse(path, `nests deeper than ${MAX_BODY_DEPTH} levels`);
      if (Array.isArray(value)) value.forEach((v, i) => stack.push({ value: v, path: `${path}[${i}]`, depth: depth + 1 }));
      else {
        for (const [k, v] of Object.entries(value)) {
          const why = badString(k);
          if (why) throw refuse(keyPath(path, k), `has a property name that ${why}`);
          stack.push({ value: v, path: keyPath(path, k), depth: depth + 1 });
        }
      }
    }
  }
}

/** Fastify's routing refusals (before any hook runs), in the envelope. */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const domain =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? new DomainError('URI_TOO_LONG', 'A path parameter is longer than any id this service issues.', {
          nextStep: 'Check the id in the path.',
        })
      : error.code === 'FST_ERR_BAD_URL'
        ? CommonErrors.invalidRequest('The URL has a malformed percent-encoding.')
        : CommonErrors.invalidRequest(`The request was refused: ${error.message}`);
  void sendError(request, reply, domain);
}

const CLIENT_ERRORS: Record<string, DomainError> = {
  HPE_HEADER_OVERFLOW: new DomainError('HEADERS_TOO_LARGE', 'The request line and headers are larger than 16 KiB.', {
    nextStep: 'Send shorter headers and URL.',
  }),
  HPE_URI_TOO_LONG: new DomainError('URI_TOO_LONG', 'The request line is too long.', { nextStep: 'Send a shorter URL.' }),
};

/** Node's HTTP parser refusals (over-large headers, a garbled request line), answered on the socket. */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
  const domain = CLIENT_ERRORS[error.code ?? ''] ?? CommonErrors.invalidRequest('The request could not be parsed as HTTP/1.1.');
  const body = JSON.stringify(envelope(domain, genRequestId({ headers: {} })));
  const status = statusOf(domain);
  socket.end(
    `HTTP/1.1 ${status} ${status === 431 ? 'Request Header Fields Too Large' : status === 414 ? 'URI Too Long' : 'Bad Request'}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

export function registerInputGuard(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    for (const [part, values] of [
      ['params', request.params],
      ['query', request.query],
    ] as const) {
      if (values && typeof values === 'object') checkValue(values, `$${part}`);
    }
    if (request.body !== undefined && !(request.routeOptions.config as { operation?: Operation } | undefined)?.operation?.rawBody) {
      checkValue(request.body);
    }
  });
}
