/**
 * JSON over HTTP to a provider, through the outbound-target policy (src/lib/outbound): the address
 * checked is the address dialled. A 429 answer is retried after its Retry-After (seconds, capped), a
 * few times; other answers are returned to the adapter to interpret.
 */
import http from 'node:http';
import https from 'node:https';
import { outboundAgent, type OutboundPolicy } from '../../../lib/outbound/index.ts';
import { ProviderError } from './types.ts';

export interface ProviderResponse {
  status: number;
  body: any;
}

export interface ProviderHttpOptions {
  policy: OutboundPolicy;
  timeoutMs?: number;
  /** Attempts on 429 answers (default 4). */
  rateLimitAttempts?: number;
  /** Longest wait honoured from a Retry-After (default 10 s). */
  maxRetryAfterSeconds?: number;
}

function once(options: ProviderHttpOptions, method: string, url: URL, headers: Record<string, string>, body: string | null) {
  return new Promise<{ status: number; retryAfter: string | undefined; text: string }>((resolve, reject) => {
    const client = url.protocol === 'https:' ? https : http;
    const request = client.request(
      url,
      {
        method,
        headers: {
          accept: 'application/json',
          ...headers,
          ...(body !== null ? { 'content-length': String(Buffer.byteLength(body)) } : {}),
        },
        agent: outboundAgent(options.policy, url.protocol === 'https:' ? 'https:' : 'http:', { keepAlive: false }),
        timeout: options.timeoutMs ?? 30_000,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (c: Buffer) => chunks.push(c));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            retryAfter: response.headers['retry-after'] as string | undefined,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        response.on('error', reject);
      },
    );
    request.on('timeout', () => request.destroy(new Error(`no answer from ${url.host} within ${options.timeoutMs ?? 30_000} ms`)));
    request.on('error', reject);
    request.end(body ?? undefined);
  });
}

export function providerHttp(options: ProviderHttpOptions) {
  return async function call(
    method: string,
    url: string,
    input: { headers?: Record<string, string>; json?: unknown; form?: Record<string, string> } = {},
  ): Promise<ProviderResponse> {
    const target = new URL(url);
    const headers = { ...input.headers };
    let body: string | null = null;
    if (input.json !== undefined) {
      body = JSON.stringify(input.json);
      headers['content-type'] = 'application/json';
    } else if (input.form) {
      body = new URLSearchParams(input.form).toString();
      headers['content-type'] = 'application/x-www-form-urlencoded';
    }
    const attempts = options.rateLimitAttempts ?? 4;
    for (let attempt = 1; ; attempt++) {
      let answer;
      try {
        answer = await once(options, method, target, headers, body);
      } catch (error) {
        throw new ProviderError('failed', 0, `${target.host} could not be reached: ${(error as Error).message}`.slice(0, 300));
      }
      if (answer.status === 429) {
        if (attempt >= attempts)
          throw new ProviderError('rate_limited', 429, `${target.host} kept answering 429 (rate limited) after ${attempts} attempts`);
        const seconds = Math.min(Math.max(Number(answer.retryAfter) || 1, 0), options.maxRetryAfterSeconds ?? 10);
        await new Promise((r) => setTimeout(r, seconds * 1000));
        continue;
      }
      let parsed: unknown = null;
      try {
        parsed = answer.text ? JSON.parse(answer.text) : null;
      } catch {
        parsed = { message: answer.text.slice(0, 200) };
      }
      return { status: answer.status, body: parsed };
    }
  };
}

export type ProviderCall = ReturnType<typeof providerHttp>;
