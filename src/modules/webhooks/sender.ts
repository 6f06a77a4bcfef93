import http from 'node:http';
import https from 'node:https';
import { outboundAgent } from '../../lib/outbound/index.ts';
import { checkTargetUrl, type TargetPolicy } from './url-policy.ts';

export type AttemptResult =
  | { kind: 'response'; statusCode: number; durationMs: number }
  | { kind: 'timeout'; durationMs: number; error: string }
  | { kind: 'network'; durationMs: number; error: string }
  | { kind: 'blocked'; durationMs: number; error: string };

/**
 * Sends one webhook POST. The timeout covers the whole exchange (connect, send, response headers and
 * body), so a receiver that accepts the connection and then hangs cannot hold a worker slot. Redirects
 * are not followed: a redirect could lead to an address the policy refuses.
 */
export async function postWebhook(input: {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  policy: TargetPolicy;
}): Promise<AttemptResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let url: URL;
  try {
    // Checked again at send time: the policy may have changed since the URL was stored.
    url = checkTargetUrl(input.url, input.policy);
  } catch (error) {
    return { kind: 'blocked', durationMs: 0, error: (error as Error).message };
  }
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), input.timeoutMs);
  const client = url.protocol === 'https:' ? https : http;
  try {
    const statusCode = await new Promise<number>((resolve, reject) => {
      const request = client.request(
        url,
        {
          method: 'POST',
          headers: { ...input.headers, 'content-length': String(Buffer.byteLength(input.body)) },
          signal: controller.signal,
          // The policy's agent resolves and judges the host (IP literals too) at connect time, and
          // dials only the approved address; a fresh connection per attempt, never a pooled socket.
          agent: outboundAgent(input.policy, url.protocol === 'https:' ? 'https:' : 'http:', { keepAlive: false }),
        },
        (response) => {
          // The body is not kept (it may echo data); read it to the end so the exchange completes.
          response.resume();
          response.on('end', () => resolve(response.statusCode ?? 0));
          response.on('error', reject);
        },
      );
      request.on('error', reject);
      request.end(input.body);
    });
    return { kind: 'response', statusCode, durationMs: elapsed() };
  } catch (error) {
    const err = error as NodeJS.ErrnoException;
    if (controller.signal.aborted)
      return { kind: 'timeout', durationMs: elapsed(), error: `No complete response within ${input.timeoutMs} ms` };
    if (err.code === 'TARGET_NOT_ALLOWED') return { kind: 'blocked', durationMs: elapsed(), error: err.message };
    return { kind: 'network', durationMs: elapsed(), error: `${err.code ?? 'ERROR'}: ${err.message}`.slice(0, 300) };
  } finally {
    clearTimeout(timer);
  }
}
