import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveProcess, type Served } from '../helpers/serve-process.ts';

/**
 * Issue 31, point 1: a failure no handler caught never ends the process silently (src/runtime.ts,
 * superviseProcess). Through `ads serve`'s own code in a real process: an unhandled rejection is logged
 * as JSON with the request id and the process keeps serving; an uncaught exception is logged at fatal
 * with the request id and the process stops through the graceful shutdown, exiting 1 for its supervisor.
 */
let served: Served;
let exit: Promise<number | null>;
let exited = false;
beforeAll(async () => {
  served = await serveProcess(
    ['test/helpers/faulty-serve.ts'],
    {
      DATA_DIR: mkdtempSync(join(tmpdir(), 'ads-faulty-')),
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      GRAPH_PERSONS: '0',
      DATABASE_URL: '',
    },
    300_000,
  );
  exit = new Promise((resolve) =>
    served.child.on('exit', (code) => {
      exited = true;
      resolve(code);
    }),
  );
}, 320_000);
afterAll(async () => {
  if (served && !exited) await served.stop();
});

const logLines = () =>
  served
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, any>);
const waitFor = async <T>(find: () => T | undefined, ms = 10_000): Promise<T | undefined> => {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 100))) {
    const found = find();
    if (found) return found;
  }
  return find();
};

describe('failures outside any handler', () => {
  it('an unhandled rejection is logged with its request id and the process keeps serving', async () => {
    const res = await fetch(`${served.url}/test/reject-later`);
    expect(res.status).toBe(200);
    const requestId = res.headers.get('x-request-id');
    const line = await waitFor(() => logLines().find((l) => l.msg?.startsWith('unhandled promise rejection')));
    expect(line, served.output().slice(-3000)).toMatchObject({ level: 50, reqId: requestId, err: { message: 'rejected, never awaited' } });
    expect(exited).toBe(false);
    expect((await fetch(`${served.url}/healthz`)).status).toBe(200);
  });

  it('an uncaught exception is logged at fatal with its request id, then the process stops gracefully and exits 1', async () => {
    const res = await fetch(`${served.url}/test/throw-later`);
    expect(res.status).toBe(200);
    const requestId = res.headers.get('x-request-id');
    expect(await Promise.race([exit, new Promise((r) => setTimeout(() => r('still running'), 60_000))])).toBe(1);
    const line = logLines().find((l) => l.msg?.startsWith('uncaught exception'));
    expect(line, served.output().slice(-3000)).toMatchObject({
      level: 60,
      reqId: requestId,
      err: { message: 'thrown outside any handler' },
    });
    expect(served.output()).toContain('uncaught exception: finishing in-flight requests and jobs, then stopping.');
  }, 90_000);
});
