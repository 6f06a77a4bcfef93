/**
 * What the tool (MCP) and agent (A2A) endpoints check before a message is read: the Origin header (a
 * browser page on another site must not drive a local server: the DNS-rebinding guard the MCP transport
 * rules require) and the bearer, with OAuth tokens accepted only when bound to this resource (an
 * API-key bearer works on every resource, spec 5.2).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Caller } from '../core/caller.ts';
import { DomainError, isDomainError } from '../core/errors.ts';
import { bearerChallenge } from '../modules/oauth/index.ts';
import { envelope, statusOf } from './error-handler.ts';

export type ResourceAuthenticate = (authorization: string | undefined) => Caller | Promise<Caller>;

/**
 * Host names a browser-based client may call from: the service's own and its resources' (never a
 * wildcard). Any port, as the SDK's own Origin guard: a rebinding attack changes the host name.
 */
const LOOPBACK = ['localhost', '127.0.0.1', '[::1]'];

export function allowedOrigins(urls: readonly string[]): Set<string> {
  const hosts = new Set(urls.map((u) => new URL(u).hostname));
  // A local server is one host under any of its loopback names.
  if (LOOPBACK.some((h) => hosts.has(h))) for (const h of LOOPBACK) hosts.add(h);
  return hosts;
}

const hostnameOf = (origin: string) => {
  try {
    return new URL(origin).hostname;
  } catch {
    return null;
  }
};

/** Null when the request may go on; otherwise the refusal was sent. Requests without Origin (non-browser clients) pass. */
export function refuseBadOrigin(request: FastifyRequest, reply: FastifyReply, allowed: ReadonlySet<string>): FastifyReply | null {
  const origin = request.headers.origin;
  if (origin === undefined) return null;
  const host = hostnameOf(origin);
  if (host !== null && allowed.has(host)) return null;
  const error = new DomainError('FORBIDDEN', `Requests from origin ${origin} are not accepted here.`, {
    nextStep: 'Call the endpoint from a non-browser client, or from a page served by this service.',
  });
  return reply.status(403).type('application/json').send(envelope(error, request.id));
}

/**
 * The caller of a request to a protected resource, or null when the refusal (401 with the resource's
 * metadata in WWW-Authenticate, as the MCP authorization rules require) was sent.
 */
export async function authenticateOrRefuse(
  request: FastifyRequest,
  reply: FastifyReply,
  authenticate: ResourceAuthenticate,
  resource: string,
): Promise<Caller | null> {
  const authorization = request.headers.authorization;
  try {
    return await authenticate(authorization);
  } catch (error) {
    if (!isDomainError(error) || (error.code !== 'TOKEN_INVALID' && error.code !== 'TOKEN_EXPIRED')) throw error;
    reply.header(
      'www-authenticate',
      bearerChallenge(resource, authorization ? { error: 'invalid_token', description: error.message } : undefined),
    );
    reply.status(statusOf(error)).type('application/json').send(envelope(error, request.id));
    return null;
  }
}
