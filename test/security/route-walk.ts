/**
 * The registered routes of a built app (BuiltApp.routes: every adapter's, as Fastify registered them),
 * as cases for the hostile-input tests, and the check that an answer is a refusal in the route's own
 * protocol: REST's section 7 envelope, an RFC 6749 error (config.protocol 'oauth'), or a JSON-RPC error
 * object (config.protocol 'jsonrpc').
 */
import type { RouteOptions } from 'fastify';

export interface RouteCase {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS';
  url: string;
  protocol: 'rest' | 'oauth' | 'jsonrpc';
}

export function routeList(routes: readonly RouteOptions[]): RouteCase[] {
  const out = new Map<string, RouteCase>();
  for (const route of routes) {
    const protocol = (route.config as { protocol?: 'oauth' | 'jsonrpc' } | undefined)?.protocol ?? 'rest';
    for (const method of [route.method].flat()) {
      out.set(`${method} ${route.url}`, { method: method as RouteCase['method'], url: route.url, protocol });
    }
  }
  return [...out.values()];
}

/** The route's URL with a plausible id in each parameter (most then answer 404, which is fine: no 5xx). */
export const concreteUrl = (url: string) =>
  url.replace(/:(\w+)(\([^)]*\))?/g, (_, name: string) => `${name}_fuzz0000000000`).replace(/\*/g, 'x');

interface Answer {
  statusCode: number;
  body: string;
  headers: Record<string, unknown>;
}

/**
 * What is wrong with the answer, or null. A refusal must be in the route's protocol; HEAD has no body.
 * `strict`: every refusal is one of ours (sent before a library sees the request), so the authorization
 * server's endpoints answer RFC 6749 JSON too.
 */
export function answerShape(route: RouteCase, res: Answer, options: { expect4xx: boolean; strict: boolean }): string | null {
  const where = `${res.statusCode} ${res.body.slice(0, 200)}`;
  if (res.statusCode >= 500) return `5xx: ${where}`;
  if (options.expect4xx && (res.statusCode < 400 || res.statusCode >= 500)) return `not a 4xx: ${where}`;
  if (res.statusCode < 400 || route.method === 'HEAD') return null;
  let body: Record<string, any>;
  try {
    body = JSON.parse(res.body);
  } catch {
    // Pages answer their refusals as pages; so do the authorization server's browser endpoints (authorize,
    // device verification) when options.strict is off, and its CORS preflight without an Origin.
    const type = String(res.headers['content-type'] ?? '');
    if (type.startsWith('text/html') && (route.protocol === 'rest' || (route.protocol === 'oauth' && !options.strict))) return null;
    if (route.protocol === 'oauth' && !options.strict && route.method === 'OPTIONS') return null;
    if (
      route.protocol === 'oauth' &&
      !options.strict &&
      /^\/v1\/oauth\/(authorize|device)/.test(route.url) &&
      type.startsWith('text/plain')
    )
      return null;
    return `not JSON: ${where}`;
  }
  const envelope = typeof body.error === 'string' && typeof body.message === 'string' && /^req_/.test(String(body.request_id));
  if (route.protocol === 'oauth')
    return typeof body.error === 'string' && typeof body.error_description === 'string' ? null : `not an RFC 6749 error: ${where}`;
  if (route.protocol === 'jsonrpc') {
    // A bearer or Origin refusal is HTTP's, before any JSON-RPC is read (MCP authorization): 401/403 with the envelope.
    if ((res.statusCode === 401 || res.statusCode === 403) && envelope) return null;
    return body.jsonrpc === '2.0' && 'id' in body && Number.isInteger(body.error?.code) && typeof body.error?.message === 'string'
      ? null
      : `not a JSON-RPC error: ${where}`;
  }
  return envelope ? null : `not the section 7 envelope: ${where}`;
}
