import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  judgeAddress,
  outboundAgent,
  policyFetch,
  policyLookup,
  type OutboundPolicy,
  type Resolver,
} from '../../src/lib/outbound/index.ts';
import { postWebhook } from '../../src/modules/webhooks/sender.ts';
import { bearer, createTestOrg, testApp, type TestApp } from '../helpers/app.ts';
import { startReceiver } from '../webhooks/helpers.ts';

/**
 * The one outbound-target policy (src/lib/outbound). Refusals are proven with IP literals and an
 * injected resolver; the only connections ever opened go to a loopback receiver.
 */
describe('outbound-target policy: address verdicts', () => {
  it.each([
    ['8.8.8.8', 'public'],
    ['93.184.216.34', 'public'],
    ['2606:4700::1111', 'public'],
    ['127.0.0.1', 'private'],
    ['10.1.2.3', 'private'],
    ['172.20.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['::1', 'private'],
    ['fd00::1', 'private'],
    ['169.254.169.254', 'forbidden'],
    ['169.254.0.1', 'forbidden'],
    ['fe80::1', 'forbidden'],
    ['fe80::1%eth0', 'forbidden'],
    ['fd00:ec2::254', 'forbidden'],
    ['100.100.100.200', 'forbidden'],
    ['168.63.129.16', 'forbidden'],
    ['0.0.0.0', 'forbidden'],
    ['::', 'forbidden'],
    ['224.0.0.1', 'forbidden'],
    ['255.255.255.255', 'forbidden'],
    ['ff02::1', 'forbidden'],
    // IPv6 forms that carry an IPv4 address are judged as that address.
    ['::ffff:127.0.0.1', 'private'],
    ['::ffff:7f00:1', 'private'],
    ['::ffff:169.254.169.254', 'forbidden'],
    ['::ffff:a9fe:a9fe', 'forbidden'],
    ['::ffff:0:169.254.169.254', 'forbidden'],
    ['::169.254.169.254', 'forbidden'],
    ['::127.0.0.1', 'private'],
    ['::a00:1', 'private'],
    ['64:ff9b::169.254.169.254', 'forbidden'],
    ['64:ff9b::a9fe:a9fe', 'forbidden'],
    ['64:ff9b::7f00:1', 'private'],
    ['64:ff9b::808:808', 'public'],
    ['64:ff9b:1::a9fe:a9fe', 'forbidden'],
    ['64:ff9b:1:a9fe:a9:fe00::', 'forbidden'],
    ['64:ff9b:1::808:808', 'forbidden'], // read at the /48 position too: 0.0.8.8 (the strictest reading wins)
    ['2002:a9fe:a9fe::1', 'forbidden'],
    ['2002:7f00:1::', 'private'],
    ['2002:808:808::1', 'public'],
    ['2001:0:4136:e378:8000:63bf:5601:5601', 'forbidden'], // Teredo: client ~5601:5601 = 169.254.169.254
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'private'], // client 127.0.0.1
    ['2001:0:7f00:1::f7f7:f7f7', 'private'], // server 127.0.0.1, client 8.8.8.8
    ['not-an-ip', 'forbidden'],
  ])('%s is %s', (address, verdict) => {
    expect(judgeAddress(address)).toBe(verdict);
  });
});

describe('outbound-target policy: connect-time checks', () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(() => receiver.close());
  const port = () => new URL(receiver.url).port;
  const resolverTo =
    (address: string): Resolver =>
    async () => [{ address, family: address.includes(':') ? 6 : 4 }];

  const get = (url: string, policy: OutboundPolicy) =>
    new Promise<number | string>((resolve) => {
      const request = http.request(url, { agent: outboundAgent(policy, 'http:', { keepAlive: false }) }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      request.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
      request.end();
    });

  it('refuses an IP literal at connect time (Node would otherwise dial it without a lookup)', async () => {
    const before = receiver.received.length;
    expect(await get(`http://127.0.0.1:${port()}/x`, { allowPrivate: false })).toBe('TARGET_NOT_ALLOWED');
    expect(await get(`http://[::ffff:7f00:1]:${port()}/x`, { allowPrivate: false })).toBe('TARGET_NOT_ALLOWED');
    expect(receiver.received.length).toBe(before);
    // With private targets allowed the same literal reaches the loopback receiver.
    expect(await get(`http://127.0.0.1:${port()}/x`, { allowPrivate: true })).toBe(200);
    expect(receiver.received.length).toBe(before + 1);
  });

  it('judges every resolved address of a name; metadata refused even with private targets allowed', async () => {
    const before = receiver.received.length;
    expect(await get(`http://hooks.example.test:${port()}/x`, { allowPrivate: false, resolve: resolverTo('127.0.0.1') })).toBe(
      'TARGET_NOT_ALLOWED',
    );
    expect(await get(`http://hooks.example.test:${port()}/x`, { allowPrivate: true, resolve: resolverTo('169.254.169.254') })).toBe(
      'TARGET_NOT_ALLOWED',
    );
    expect(await get(`http://hooks.example.test:${port()}/x`, { allowPrivate: true, resolve: resolverTo('64:ff9b::a9fe:a9fe') })).toBe(
      'TARGET_NOT_ALLOWED',
    );
    const mixed: Resolver = async () => [
      { address: '127.0.0.1', family: 4 },
      { address: '169.254.169.254', family: 4 },
    ];
    expect(await get(`http://hooks.example.test:${port()}/x`, { allowPrivate: true, resolve: mixed })).toBe('TARGET_NOT_ALLOWED');
    expect(receiver.received.length).toBe(before);
    // The dialled address is the resolved one: the made-up name reaches the loopback receiver.
    expect(await get(`http://hooks.example.test:${port()}/x`, { allowPrivate: true, resolve: resolverTo('127.0.0.1') })).toBe(200);
    expect(receiver.received.length).toBe(before + 1);
  });

  it('the fetch-shaped form (OAuth client metadata documents) refuses the same targets and reads what it may reach', async () => {
    const before = receiver.received.length;
    const refused = async (url: string, policy: OutboundPolicy) =>
      policyFetch(policy)(url).then(
        () => 'fetched',
        (e: NodeJS.ErrnoException) => e.code,
      );
    expect(await refused(`http://127.0.0.1:${port()}/doc`, { allowPrivate: false })).toBe('TARGET_NOT_ALLOWED');
    expect(await refused(`http://client.example.test:${port()}/doc`, { allowPrivate: true, resolve: resolverTo('169.254.169.254') })).toBe(
      'TARGET_NOT_ALLOWED',
    );
    expect(await refused(`http://client.example.test:${port()}/doc`, { allowPrivate: false, resolve: resolverTo('::ffff:10.0.0.5') })).toBe(
      'TARGET_NOT_ALLOWED',
    );
    expect(receiver.received.length).toBe(before);
    const ok = await policyFetch({ allowPrivate: true, resolve: resolverTo('127.0.0.1') })(`http://client.example.test:${port()}/doc`, {
      method: 'GET',
      headers: { accept: 'application/json' },
    });
    expect(ok.status).toBe(200);
    await ok.text();
    expect(receiver.received.length).toBe(before + 1);
  });

  it('the dns.lookup-shaped form refuses the same targets (for destinations and SSH clients)', async () => {
    const lookup = policyLookup({ allowPrivate: false, resolve: resolverTo('10.0.0.5') });
    const answer = await new Promise<string>((resolve) =>
      lookup('sftp.example.test', { all: false }, (err, address) =>
        resolve(err ? String((err as NodeJS.ErrnoException).code) : String(address)),
      ),
    );
    expect(answer).toBe('TARGET_NOT_ALLOWED');
  });

  it('a webhook attempt to a name that resolves to a refused address is logged as blocked, with no connection', async () => {
    const before = receiver.received.length;
    const result = await postWebhook({
      url: `http://hooks.example.test:${port()}/hook`,
      headers: {},
      body: '{}',
      timeoutMs: 2000,
      policy: { allowPrivate: true, resolve: resolverTo('::ffff:169.254.169.254') },
    });
    expect(result.kind).toBe('blocked');
    expect(receiver.received.length).toBe(before);
  });
});

describe('outbound-target policy over HTTP: webhook URLs', () => {
  let strict: TestApp;
  let open: TestApp;
  beforeAll(async () => {
    strict = await testApp({ config: { outbound: { allowPrivateTargets: false } } });
    open = await testApp();
  });
  afterAll(async () => {
    await strict.app.close();
    await open.app.close();
  });

  it('refuses every embedded-IPv4 form of private and metadata addresses in the envelope, changing nothing', async () => {
    const org = await createTestOrg(strict);
    const token = await org.token(['account']);
    for (const host of [
      '[::ffff:a9fe:a9fe]',
      '[::169.254.169.254]',
      '[64:ff9b::a9fe:a9fe]',
      '[64:ff9b:1::a9fe:a9fe]',
      '[2002:a9fe:a9fe::1]',
      '[2001:0:4136:e378:8000:63bf:5601:5601]',
      '[::ffff:0:7f00:1]',
      '[64:ff9b::a00:1]',
      '0x7f.1',
      '2130706433',
      'localhost',
      'app.localhost',
    ]) {
      const res = await strict.app.inject({
        method: 'PUT',
        url: '/v1/settings/webhook',
        headers: bearer(token),
        payload: { url: `https://${host}/hook` },
      });
      expect(res.statusCode, host).toBe(400);
      expect(res.json(), host).toMatchObject({ error: 'INVALID_WEBHOOK_URL' });
      expect(res.json().request_id, host).toBeTruthy();
    }
    const get = await strict.app.inject({ method: 'GET', url: '/v1/settings/webhook', headers: bearer(token) });
    expect(get.json()).toMatchObject({ url: null });
  });

  it('refuses metadata and link-local targets even when private targets are allowed', async () => {
    const org = await createTestOrg(open);
    const token = await org.token(['account']);
    for (const host of ['169.254.169.254', '[fe80::1]', '[fd00:ec2::254]', '[64:ff9b::a9fe:a9fe]', '100.100.100.200']) {
      const res = await open.app.inject({
        method: 'PUT',
        url: '/v1/settings/webhook',
        headers: bearer(token),
        payload: { url: `https://${host}/latest/meta-data` },
      });
      expect(res.statusCode, host).toBe(400);
    }
    expect(
      (
        await open.app.inject({
          method: 'PUT',
          url: '/v1/settings/webhook',
          headers: bearer(token),
          payload: { url: 'http://127.0.0.1:9/hook' },
        })
      ).statusCode,
    ).toBe(200);
  });
});
