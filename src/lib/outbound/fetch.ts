/**
 * A fetch-shaped function over the outbound-target policy, for libraries that take a fetch (OAuth
 * client metadata documents): the address checked is the address dialled, as for webhooks and
 * destinations. Redirects are not followed (a redirect answer is returned as it is).
 */
import http from 'node:http';
import https from 'node:https';
import { Readable } from 'node:stream';
import { outboundAgent, type OutboundPolicy } from './policy.ts';

export function policyFetch(policy: OutboundPolicy, options: { timeoutMs?: number } = {}) {
  const timeoutMs = options.timeoutMs ?? 30_000;
  return (input: URL | string, init: RequestInit = {}): Promise<Response> =>
    new Promise((resolve, reject) => {
      const url = new URL(String(input));
      if (url.protocol !== 'http:' && url.protocol !== 'https:') return reject(new TypeError(`unsupported protocol ${url.protocol}`));
      const protocol = url.protocol;
      const request = (protocol === 'https:' ? https : http).request(
        url,
        {
          method: init.method ?? 'GET',
          headers: Object.fromEntries(new Headers(init.headers)),
          agent: outboundAgent(policy, protocol, { keepAlive: false }),
          timeout: timeoutMs,
          signal: init.signal ?? undefined,
        },
        (response) => {
          const headers = new Headers();
          for (const [name, value] of Object.entries(response.headers)) {
            if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
          }
          const status = response.statusCode ?? 502;
          const body = status === 204 || status === 304 ? null : (Readable.toWeb(response) as ReadableStream<Uint8Array>);
          resolve(new Response(body, { status, headers }));
        },
      );
      request.on('timeout', () => request.destroy(new Error(`no answer from ${url.host} within ${timeoutMs} ms`)));
      request.on('error', reject);
      request.end(typeof init.body === 'string' ? init.body : undefined);
    });
}
