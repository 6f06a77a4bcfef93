import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveProcess, type Served } from '../helpers/serve-process.ts';

/**
 * Issue 31, point 1: one unauthenticated request with `Content-Encoding: gzip` and a body that is not
 * gzip stopped `ads serve`. Through a real process on a real port: the request is answered 4xx, and
 * the process is still alive and serving afterwards.
 */
const NOT_GZIP = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00]);
let served: Served;
let exited: number | null | undefined;
beforeAll(async () => {
  served = await serveProcess(
    ['src/main.ts', 'serve'],
    {
      DATA_DIR: mkdtempSync(join(tmpdir(), 'ads-enc-')),
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      GRAPH_PERSONS: '0',
      DATABASE_URL: '',
    },
    300_000,
  );
  served.child.on('exit', (code) => (exited = code));
}, 320_000);
afterAll(async () => {
  if (served && exited === undefined) await served.stop();
});

describe('a body that is not the encoding it declares, to a live process', () => {
  it.each(['/v1/oauth/token', '/v1/oauth/revoke', '/v1/oauth/device_authorization', '/v1/oauth/register', '/v1/oauth/device'])(
    'POST %s answers 400 invalid_request and the process keeps serving',
    async (path) => {
      const res = await fetch(`${served.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-encoding': 'gzip' },
        body: NOT_GZIP,
      }).catch((error: Error) => error);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(exited, served.output().slice(-2000)).toBeUndefined();
      expect(res).toBeInstanceOf(Response);
      expect((res as Response).status).toBe(400);
      expect(await (res as Response).json()).toMatchObject({ error: 'invalid_request', error_description: expect.any(String) });
      expect((await fetch(`${served.url}/healthz`)).status).toBe(200);
    },
  );
});
