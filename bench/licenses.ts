/**
 * License state at scale: one organization with N licensed persons (default 1,000,000), then the
 * lookups a delivery makes (quote: how many of its identities are already licensed) and the charge
 * that licenses a delivery's new identities, through billing's public API on a real store (embedded
 * PGlite; BENCH_DATABASE_URL for PostgreSQL).
 *
 *   npx tsx bench/licenses.ts [--persons 1000000] [--delivery 100000]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { billingSettings } from '../src/config/billing.ts';
import { openDatabase } from '../src/db/database.ts';
import { systemClock } from '../src/lib/clock.ts';
import { createBillingModule } from '../src/modules/billing/index.ts';
import { createOrganizationsModule } from '../src/modules/organizations/index.ts';

const { values } = parseArgs({ options: { persons: { type: 'string' }, delivery: { type: 'string' } } });
const PERSONS = Number(values.persons ?? 1_000_000);
const DELIVERY = Number(values.delivery ?? 100_000);
const dataDir = mkdtempSync(join(tmpdir(), 'ads-bench-licenses-'));
const database = await openDatabase({ databaseUrl: process.env.BENCH_DATABASE_URL || null, dataDir });
const db = database.db;
const { organizations } = createOrganizationsModule({ db, clock: systemClock, passwordScryptLogN: 12 });
const { billing } = createBillingModule({
  db,
  clock: systemClock,
  settings: billingSettings({}),
  tiers: { tierOf: async () => 'paygo', setTier: async () => undefined },
});
const org = await organizations.createOrganization({ name: `bench licenses ${Date.now()}`, tier: 'paygo' });
const range = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);
const time = async <T>(fn: () => Promise<T>) => {
  const t = performance.now();
  const value = await fn();
  return { value, ms: Math.round(performance.now() - t) };
};
const input = (identities: number[]) => ({
  orgId: org.id,
  audienceSubtype: 'filter' as const,
  destination: 'download',
  fields: [],
  identities,
});

// Licensing the whole population, one delivery of PERSONS identities.
const all = range(1, PERSONS);
const license = await time(() => db.transaction().execute((trx) => billing.chargeDelivery(trx, { ...input(all), idempotencyKey: 'all' })));
// A quote of the whole population: every identity is licensed.
const quoteAll = await time(() => billing.quoteDelivery(input(all)));
// A typical delivery: half licensed, half new.
const mixed = range(PERSONS - DELIVERY / 2 + 1, DELIVERY);
const quoteMixed = await time(() => billing.quoteDelivery(input(mixed)));
const chargeMixed = await time(() =>
  db.transaction().execute((trx) => billing.chargeDelivery(trx, { ...input(mixed), idempotencyKey: 'mixed' })),
);
// A refresh of licensed identities: looked up and free.
const refresh = await time(() =>
  db.transaction().execute((trx) => billing.chargeDelivery(trx, { ...input(range(1, DELIVERY)), idempotencyKey: 'refresh' })),
);

console.log(
  JSON.stringify(
    {
      store: database.kind,
      persons: PERSONS,
      delivery: DELIVERY,
      license_all: { ms: license.ms, billable: license.value.billable_count, per_second: Math.round(PERSONS / (license.ms / 1000)) },
      quote_all: {
        ms: quoteAll.ms,
        already_licensed: quoteAll.value.license_pricing.already_licensed_count,
        per_second: Math.round(PERSONS / (quoteAll.ms / 1000)),
      },
      quote_delivery: { ms: quoteMixed.ms, already_licensed: quoteMixed.value.license_pricing.already_licensed_count },
      charge_delivery: { ms: chargeMixed.ms, billable: chargeMixed.value.billable_count },
      refresh_delivery: { ms: refresh.ms, billable: refresh.value.billable_count },
    },
    null,
    2,
  ),
);
await database.close();
rmSync(dataDir, { recursive: true, force: true });
