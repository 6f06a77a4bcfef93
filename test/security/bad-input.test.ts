import { mkdtempSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FILTER_BOUNDS } from '../../src/graph/filters/index.ts';
import { MAX_BODY_DEPTH } from '../../src/http/input-guard.ts';
import { bearer, createTestOrg, testApp, type TestApp } from '../helpers/app.ts';
import { generateTestGraph } from '../discovery/graph.ts';

/**
 * Hostile input (issue 12, "Bad input" and "Bounds"): every such request is a 4xx in the spec section
 * 7 envelope with a request_id, and changes nothing.
 */
let t: TestApp;
let token: string;
let port: number;
let dataDir: string;
beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'ads-badin-'));
  await generateTestGraph(dataDir, 2000);
  t = await testApp({ config: { dataDir } });
  token = await (await createTestOrg(t)).token(['discovery', 'creator', 'account']);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as AddressInfo).port;
});
afterAll(() => t.app.close());

type Res = { statusCode: number; body: string; json: () => any };
const json = (
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE',
  url: string,
  payload?: string | Buffer,
  headers: Record<string, string> = {},
) => t.app.inject({ method, url, headers: { ...bearer(token), 'content-type': 'application/json', ...headers }, payload }) as Promise<Res>;

function expectEnvelope(res: Res, status: number, code?: string) {
  expect(res.statusCode, res.body.slice(0, 300)).toBe(status);
  const body = res.json();
  expect(body.error, res.body.slice(0, 300)).toEqual(expect.any(String));
  expect(body.code).toBe(body.error);
  expect(body.message).toEqual(expect.any(String));
  expect(body.request_id).toMatch(/^req_/);
  if (code) expect(body.error).toBe(code);
}

const COUNT = '/v1/discovery/count';
const stateIs = (value: unknown) => JSON.stringify({ filters: [{ field: 'state', op: '=', value }] });

const segmentCount = async () => (await json('GET', '/v1/segments?limit=100')).json().count as number;

describe('strings the stores cannot keep', () => {
  it('NUL and other control characters in path ids and query values: 400, not 500', async () => {
    for (const url of ['/v1/segments/seg_%00abc', '/v1/audiences/aud%01x', '/v1/segments/%7F', '/v1/segments?limit=10&status=%00']) {
      expectEnvelope(await json('GET', url), 400, 'INVALID_REQUEST');
    }
  });

  it('NUL in stored strings (a segment name, a campaign name) is 400 and nothing is stored', async () => {
    const before = await segmentCount();
    const seg = await json(
      'POST',
      '/v1/segments',
      JSON.stringify({ name: 'a\u0000b', subtype: 'filter', filters: [{ field: 'state', op: '=', value: 'CA' }] }),
    );
    expectEnvelope(seg, 400, 'INVALID_REQUEST');
    expect(seg.json().issues[0].path).toBe('$.name');
    expectEnvelope(await json('POST', '/v1/campaigns', JSON.stringify({ name: 'bell\u0007' })), 400, 'INVALID_REQUEST');
    expect(await segmentCount()).toBe(before);
    // Tab, newline and carriage return are ordinary text.
    expect((await json('POST', '/v1/campaigns', JSON.stringify({ name: 'two\tcolumns\nname' }))).statusCode).toBe(201);
  });

  it('lone surrogates in object keys and values: 400', async () => {
    expectEnvelope(await json('POST', COUNT, '{"filters":[{"field":"state","op":"=","value":"CA"}],"\\ud800":1}'), 400, 'INVALID_REQUEST');
    expectEnvelope(await json('POST', COUNT, '{"filters":[{"\\udc00field":"state","op":"=","value":"CA"}]}'), 400, 'INVALID_REQUEST');
    expectEnvelope(await json('POST', COUNT, '{"filters":[{"field":"state","op":"=","value":"\\ud83d"}]}'), 400, 'INVALID_REQUEST');
    expectEnvelope(
      await json('POST', '/v1/segments', '{"name":"x\\udfff","subtype":"filter","filters":[{"field":"state","op":"=","value":"CA"}]}'),
      400,
    );
    // A proper pair (an emoji) is fine where text is free.
    expect((await json('POST', '/v1/campaigns', JSON.stringify({ name: 'launch \u{1F680}' }))).statusCode).toBe(201);
  });

  it(`nesting deeper than ${MAX_BODY_DEPTH} levels in a filter value: 400 before anything recurses`, async () => {
    const deepArray = '['.repeat(5000) + '"CA"' + ']'.repeat(5000);
    expectEnvelope(await json('POST', COUNT, `{"filters":[{"field":"state","op":"IN","value":${deepArray}}]}`), 400, 'INVALID_REQUEST');
    const deepObject = '{"a":'.repeat(5000) + '1' + '}'.repeat(5000);
    expectEnvelope(await json('POST', COUNT, `{"filters":[{"field":"state","op":"=","value":${deepObject}}]}`), 400, 'INVALID_REQUEST');
    expectEnvelope(
      await json('POST', '/v1/segments', `{"name":"deep","subtype":"filter","filters":[{"field":"state","op":"=","value":${deepObject}}]}`),
      400,
    );
  });

  it('malformed LIKE escapes: 400 INVALID_FILTER with the place and a fix', async () => {
    for (const value of ['Jo\\', 'a\\b', '\\']) {
      const res = await json('POST', COUNT, JSON.stringify({ filters: [{ field: 'city', op: 'LIKE', value }] }));
      expectEnvelope(res, 400, 'INVALID_FILTER');
      expect(res.json().issues[0].path).toBe('$.filters[0].value');
    }
    // Proper escapes are accepted (answered, or held back by the privacy floor; never refused as invalid).
    const ok = await json('POST', COUNT, JSON.stringify({ filters: [{ field: 'city', op: 'LIKE', value: 'SAN\\_%\\%\\\\%' }] }));
    expect([200, 422]).toContain(ok.statusCode);
  });
});

describe("Fastify's and Node's own refusals carry the envelope", () => {
  const raw = (text: string) =>
    new Promise<string>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => socket.write(text));
      let out = '';
      socket.on('data', (d) => (out += d));
      socket.on('close', () => resolve(out));
    });
  const bodyOf = (response: string) => JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4));

  it('a malformed percent-encoding is 400 and an over-long path parameter 414, both in the envelope', async () => {
    expectEnvelope(await json('GET', '/v1/segments/%E0%A4%A'), 400, 'INVALID_REQUEST');
    expectEnvelope(await json('GET', `/v1/segments/${'a'.repeat(500)}`), 414, 'URI_TOO_LONG');
  });

  it('over-large headers (431) and an unparseable request (400) are answered in the envelope on the socket', async () => {
    const big = await raw(`GET /v1/segments HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(big.split('\r\n')[0]).toBe('HTTP/1.1 431 Request Header Fields Too Large');
    expect(bodyOf(big)).toMatchObject({ error: 'HEADERS_TOO_LARGE', request_id: expect.stringMatching(/^req_/) });
    const longUrl = await raw(`GET /v1/segments/${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(bodyOf(longUrl).request_id).toMatch(/^req_/);
    expect(longUrl.split(' ')[1]).toMatch(/^4\d\d$/);
    const garbled = await raw('BLAH\r\n\r\n');
    expect(garbled.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
    expect(bodyOf(garbled)).toMatchObject({ error: 'INVALID_REQUEST', request_id: expect.stringMatching(/^req_/) });
  });

  it('a body over the limit is 413 in the envelope, also when it only grows that large once decoded', async () => {
    expectEnvelope(await json('POST', COUNT, 'x'.repeat(6 * 1024 * 1024)), 413, 'PAYLOAD_TOO_LARGE');
    const bomb = gzipSync(Buffer.from(`{"filters":[{"field":"state","op":"=","value":"${'A'.repeat(8 * 1024 * 1024)}"}]}`));
    expect(bomb.length).toBeLessThan(100_000);
    expectEnvelope(await json('POST', COUNT, bomb, { 'content-encoding': 'gzip' }), 413, 'PAYLOAD_TOO_LARGE');
  });
});

describe('Content-Encoding', () => {
  const body = stateIs('CA');
  it('gzip, deflate and br bodies are decoded and answered like plain ones', async () => {
    const plain = await json('POST', COUNT, body);
    expect(plain.statusCode).toBe(200);
    for (const [encoding, bytes] of [
      ['gzip', gzipSync(body)],
      ['deflate', deflateSync(body)],
      ['br', brotliCompressSync(body)],
    ] as const) {
      const res = await json('POST', COUNT, bytes, { 'content-encoding': encoding });
      expect(res.statusCode, encoding).toBe(200);
      expect(res.json().count, encoding).toBe(plain.json().count);
    }
  });

  it('an unknown encoding is 415, a body that is not what it declares is 400, both in the envelope', async () => {
    expectEnvelope(await json('POST', COUNT, body, { 'content-encoding': 'compress' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expectEnvelope(await json('POST', COUNT, body, { 'content-encoding': 'gzip' }), 400, 'INVALID_REQUEST');
  });
});

describe('bounds per request (README limits table)', () => {
  const condition = (i: number) => ({ field: 'state', op: '=', value: i % 2 ? 'CA' : 'TX' });

  it(`more than ${FILTER_BOUNDS.conditions} conditions, ${FILTER_BOUNDS.groups} groups or ${FILTER_BOUNDS.totalListValues} list values: 400 LIMIT_EXCEEDED`, async () => {
    const many = await json('POST', COUNT, JSON.stringify({ filters: Array.from({ length: 60_000 }, (_, i) => condition(i)) }));
    expectEnvelope(many, 400, 'LIMIT_EXCEEDED');
    expect(many.json()).toMatchObject({ limit: FILTER_BOUNDS.conditions, got: 60_000 });
    const groups = Array.from({ length: 20_000 }, (_, i) => ({ id: `g${i}`, combinator: 'OR', filters: [condition(i)] }));
    const orGroups = await json('POST', COUNT, JSON.stringify({ filter_groups: groups }));
    expectEnvelope(orGroups, 400, 'LIMIT_EXCEEDED');
    expect(orGroups.json()).toMatchObject({ limit: FILTER_BOUNDS.groups, got: 20_000 });
    const lists = Array.from({ length: 6 }, () => ({
      field: 'zip',
      op: 'IN',
      value: Array.from({ length: 1000 }, (_, i) => String(10000 + i)),
    }));
    expectEnvelope(await json('POST', COUNT, JSON.stringify({ filters: lists })), 400, 'LIMIT_EXCEEDED');
    const before = await segmentCount();
    expectEnvelope(
      await json(
        'POST',
        '/v1/segments',
        JSON.stringify({ name: 'huge', subtype: 'filter', filters: Array.from({ length: 201 }, (_, i) => condition(i)) }),
      ),
      400,
      'LIMIT_EXCEEDED',
    );
    expect(await segmentCount()).toBe(before);
  });

  it('requests at the bounds are answered', async () => {
    const atBound = Array.from({ length: FILTER_BOUNDS.groups }, (_, i) => ({
      id: `g${i}`,
      combinator: 'OR',
      filters: Array.from({ length: FILTER_BOUNDS.conditions / FILTER_BOUNDS.groups }, () => condition(1)),
    }));
    const res = await json('POST', COUNT, JSON.stringify({ filter_groups: atBound }));
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
  });
});

describe('the compute budget is charged for the work done', () => {
  it('each condition beyond the first is charged as one more 4-byte read per row', async () => {
    const everyone = { field: 'age', op: '>=', value: 0 };
    const one = await json('POST', COUNT, JSON.stringify({ filters: [everyone] }));
    const many = await json('POST', COUNT, JSON.stringify({ filters: Array.from({ length: 100 }, () => everyone) }));
    expect([one.statusCode, many.statusCode]).toEqual([200, 200]);
    expect(many.json().count).toBe(one.json().count);
    expect(many.json().estimated_bytes_scanned - one.json().estimated_bytes_scanned).toBe(2000 * 4 * 99);
  });
});
