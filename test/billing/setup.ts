/** A wired app on a fixed clock with the built-in payment provider on loopback, shared by the billing tests. */
import { seededRandom } from '../../src/lib/random.ts';
import { billingSettings } from '../../src/config/billing.ts';
import { ManualClock } from '../../src/lib/clock.ts';
import { startDevPaymentProvider, type DevPaymentProvider } from '../../src/modules/billing/index.ts';
import { bearer, createTestOrg, testApp, type TestApp, type TestOrg } from '../helpers/app.ts';
import type { Tier } from '../../src/config/index.ts';

export type BillingOrg = Omit<TestOrg, 'token'> & { token: string; newToken: TestOrg['token'] };

export interface BillingTest {
  t: TestApp;
  clock: ManualClock;
  provider: DevPaymentProvider;
  call(
    method: string,
    url: string,
    token: string,
    body?: unknown,
  ): Promise<{ status: number; body: any; text: string; headers: Record<string, unknown> }>;
  org(options?: { tier?: Tier; mode?: 'prepaid' | 'invoiced'; parent?: string }): Promise<BillingOrg>;
  close(): Promise<void>;
}

export const START = '2026-03-10T12:00:00.000Z';

export async function setupBilling(): Promise<BillingTest> {
  const provider = await startDevPaymentProvider();
  const clock = new ManualClock(START);
  const t = await testApp({
    clock,
    config: { billing: { ...billingSettings({}), paymentProvider: { url: provider.url, secretKey: provider.secretKey } } },
  });
  return {
    t,
    clock,
    provider,
    async call(method, url, token, body) {
      const res = await t.app.inject({
        method: method as 'GET',
        url,
        headers: token ? bearer(token) : {},
        ...(body === undefined ? {} : { payload: body as object }),
      });
      let parsed: any = null;
      try {
        parsed = res.json();
      } catch {
        parsed = null;
      }
      return { status: res.statusCode, body: parsed, text: res.body, headers: res.headers };
    },
    async org(options = {}) {
      const o = await createTestOrg(t, { tier: options.tier ?? 'paygo' });
      if (options.mode || options.parent) {
        await t.services.billingModule.accounts.setup(o.orgId, { mode: options.mode, parentOrgId: options.parent });
      }
      return { ...o, token: await o.token(), newToken: o.token };
    },
    async close() {
      await t.app.close();
      await provider.close();
    },
  };
}

/** Deterministic pseudo-random numbers (mulberry32, src/lib/random.ts). */
export const prng = seededRandom;

export const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
