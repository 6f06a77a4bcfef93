/**
 * Delivery destinations meet the outbound-target policy when they are configured (decision 027), as
 * webhook URLs do: loopback, private and `localhost` hosts are refused unless private targets are
 * allowed (the test suite allows them for its loopback SFTP and S3 servers), and link-local and
 * metadata hosts are refused in every mode. The connect-time check stays (test/destinations).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestOrg, testApp, type TestApp } from '../helpers/app.ts';

let strict: TestApp;
let open: TestApp;

beforeAll(async () => {
  strict = await testApp({ config: { outbound: { allowPrivateTargets: false } } });
  open = await testApp();
}, 240_000);
afterAll(async () => {
  await strict?.app.close();
  await open?.app.close();
});

const sftp = (host: string) => ({
  kind: 'sftp',
  name: 'drop',
  config: { host, port: 22, username: 'u', remote_dir: 'in' },
  secrets: { password: 'p' },
});
const s3 = (endpoint: string) => ({
  kind: 's3',
  name: 'bucket',
  config: { endpoint, region: 'us-east-1', bucket: 'ads-bucket', force_path_style: true },
  secrets: { access_key_id: 'AKIAEXAMPLE', secret_access_key: 'secret' },
});

async function post(t: TestApp, token: string, body: unknown) {
  const res = await t.app.inject({ method: 'POST', url: '/v1/delivery-destinations', headers: bearer(token), payload: body as object });
  return { status: res.statusCode, body: res.json() };
}

describe('delivery destinations under the outbound-target policy', () => {
  it('refuses loopback, private, localhost and metadata hosts when configured (400 DESTINATION_BLOCKED), creating nothing', async () => {
    const org = await createTestOrg(strict);
    const token = await org.token(['account']);
    const bodies = [
      ...[
        '127.0.0.1',
        '::1',
        '[::1]',
        'localhost',
        'files.localhost',
        '169.254.169.254',
        '10.0.0.5',
        '172.16.3.4',
        '192.168.1.10',
        '2130706433',
        '0x7f.0.0.1',
        '::ffff:127.0.0.1',
      ].map(sftp),
      ...[
        'http://127.0.0.1:9000',
        'http://[::1]:9000',
        'https://localhost',
        'http://169.254.169.254/latest',
        'https://10.1.2.3',
        'http://[fd00:ec2::254]/',
      ].map(s3),
    ];
    for (const body of bodies) {
      const res = await post(strict, token, body);
      const target = JSON.stringify(body.config);
      expect(res.status, target).toBe(400);
      expect(res.body, target).toMatchObject({ error: 'DESTINATION_BLOCKED', request_id: expect.any(String) });
    }
    const list = await strict.app.inject({ method: 'GET', url: '/v1/delivery-destinations', headers: bearer(token) });
    expect(list.statusCode).toBe(200);
    expect(list.json().destinations).toEqual([]);
    // Public hosts are configured (names are judged again at connect time, where they resolve).
    expect((await post(strict, token, sftp('sftp.example.com'))).status).toBe(201);
    expect((await post(strict, token, s3('https://s3.example.com'))).status).toBe(201);
    expect(
      (await post(strict, token, { ...s3('https://s3.example.com'), config: { region: 'us-east-1', bucket: 'ads-bucket' } })).status,
    ).toBe(201);
  });

  it('with private targets allowed, loopback is configured but link-local and metadata hosts are still refused', async () => {
    const org = await createTestOrg(open);
    const token = await org.token(['account']);
    for (const host of ['169.254.169.254', 'fe80::1', 'fd00:ec2::254', '100.100.100.200', '::ffff:169.254.169.254']) {
      const res = await post(open, token, sftp(host));
      expect([res.status, res.body.error], host).toEqual([400, 'DESTINATION_BLOCKED']);
    }
    expect((await post(open, token, s3('http://169.254.169.254/'))).body.error).toBe('DESTINATION_BLOCKED');
    expect((await post(open, token, sftp('127.0.0.1'))).status).toBe(201);
    expect((await post(open, token, s3('http://127.0.0.1:9000'))).status).toBe(201);
  });
});
