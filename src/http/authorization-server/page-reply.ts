import type { FastifyInstance, FastifyReply } from 'fastify';
import { PAGE_CSP } from '../../modules/oauth/index.ts';

/** A parsed application/x-www-form-urlencoded body: repeated fields become arrays. */
export type FormBody = Record<string, string | string[] | undefined>;

export function sendPage(reply: FastifyReply, body: string, status = 200): FastifyReply {
  return reply
    .status(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('content-security-policy', PAGE_CSP)
    .header('x-frame-options', 'DENY')
    .header('referrer-policy', 'no-referrer')
    .header('cache-control', 'no-store')
    .send(body);
}

/** Parses form posts (our pages' forms), bounded at 16 KiB. */
export function registerFormParser(app: FastifyInstance): void {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 16 * 1024 }, (_request, body, done) => {
    const out: FormBody = {};
    for (const [key, value] of new URLSearchParams(body as string)) {
      const existing = out[key];
      out[key] = existing === undefined ? value : ([] as string[]).concat(existing, value);
    }
    done(null, out);
  });
}
