/** `ads billing ...`: operators' view of an organization's billing, credit grants, the billing boundary and reconciliation. */
import { parseArgs } from 'node:util';
import { loadConfig, isTier, type Tier } from '../config/index.ts';
import { openDatabase } from '../db/database.ts';
import { systemClock } from '../lib/clock.ts';
import { createBillingModule, startDevPaymentProvider, type BillingModule } from '../modules/billing/index.ts';
import { createOrganizationsModule } from '../modules/organizations/index.ts';
import { printJson, UsageError } from './output.ts';

async function withBilling<T>(fn: (billing: BillingModule, production: boolean) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    const { organizations } = createOrganizationsModule({
      db: database.db,
      clock: systemClock,
      passwordScryptLogN: config.oauth.passwordScryptLogN,
    });
    const billing = createBillingModule({
      db: database.db,
      clock: systemClock,
      settings: config.billing,
      publicUrl: config.publicUrl,
      tiers: {
        tierOf: async (orgId) => {
          const tier = (await organizations.findOrganization(orgId))?.tier;
          return tier && isTier(tier) ? (tier as Tier) : null;
        },
        setTier: (orgId, tier) => organizations.setTier(orgId, tier),
      },
      isOwner: async (orgId, userId) => (await organizations.findUser(orgId, userId))?.role === 'owner',
    });
    return await fn(billing, config.production);
  } finally {
    await database.close();
  }
}

const usd = (cents: number) => Math.round(cents) / 100;
const list = (v: string | undefined) =>
  v
    ? v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : [];
const date = (v: string | undefined, name: string) => {
  if (v === undefined) return undefined;
  const d = new Date(v);
  if (Number.isNaN(d.getTime())) throw new UsageError(`${name} must be an ISO 8601 date-time`);
  return d;
};

export async function billingCommand(args: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      org: { type: 'string' },
      kind: { type: 'string' },
      mode: { type: 'string' },
      parent: { type: 'string' },
      'no-parent': { type: 'boolean' },
      cadence: { type: 'string' },
      amount: { type: 'string' },
      priority: { type: 'string' },
      'product-ids': { type: 'string' },
      tags: { type: 'string' },
      starts: { type: 'string' },
      ends: { type: 'string' },
      name: { type: 'string' },
      port: { type: 'string' },
    },
  });
  const sub = positionals[0];
  if (sub === 'provider') {
    const provider = await startDevPaymentProvider({ port: values.port ? Number(values.port) : 4242 });
    process.stderr.write(
      `Built-in payment provider on ${provider.url}\nSet PAYMENT_PROVIDER_URL=${provider.url} PAYMENT_PROVIDER_KEY=${provider.secretKey}\n`,
    );
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    await provider.close();
    return;
  }
  if (sub === 'recharge-check') {
    printJson({ organizations_charged_or_completed: await withBilling((b) => b.recharge.checkAll()) });
    return;
  }
  if (sub === 'advance') {
    const out = await withBilling(async (b, production) => {
      if (values.org) {
        if (production) throw new UsageError("advancing an organization's billing boundary is for development only");
        await b.accounts.account(values.org);
        await b.accounts.forceBoundary(values.org);
      }
      return b.accounts.applyBoundaries();
    });
    printJson({ applied_changes: out });
    return;
  }
  const org = values.org;
  if (!org) throw new UsageError('name the organization: --org <org_id>');
  if (sub === 'show') {
    printJson(
      await withBilling(async (b) => {
        const a = await b.accounts.account(org);
        const contract = await b.accounts.contract(org);
        return {
          org_id: org,
          billing_account_id: a.billing_account_id,
          billing_mode: a.mode,
          parent_org_id: a.parent_org_id,
          balance: usd(await b.accounts.balanceCents(org)),
          payment_method: a.payment_method_label,
          contract,
          credits: a.parent_org_id ? 'billed through the parent organization' : (await b.accounts.credits(org)).balances,
          auto_recharge: (await b.recharge.get(org)).auto_recharge,
        };
      }),
    );
  } else if (sub === 'ledger') {
    printJson(
      await withBilling(async (b) =>
        (await b.billing.ledger(org, values.kind)).map((r) => ({
          id: r.id,
          kind: r.kind,
          status: r.status,
          quantity: r.quantity,
          amount: usd(r.amount_cents),
          covered: usd(r.covered_cents),
          created_at: r.created_at,
          settled_at: r.settled_at,
        })),
      ),
    );
  } else if (sub === 'setup') {
    printJson(
      await withBilling((b) =>
        b.accounts.setup(org, { mode: values.mode, cadence: values.cadence, parentOrgId: values['no-parent'] ? null : values.parent }),
      ),
    );
  } else if (sub === 'grant') {
    const kind = values.kind;
    if (kind !== 'paid_commit' && kind !== 'promotional_credit') throw new UsageError('--kind must be paid_commit or promotional_credit');
    const amount = Number(values.amount);
    if (!Number.isFinite(amount) || amount <= 0) throw new UsageError('--amount must be a positive number of US dollars');
    printJson(
      await withBilling((b) =>
        b.accounts.grant(org, {
          kind,
          amountCents: Math.round(amount * 100),
          name: values.name,
          priority: values.priority ? Number(values.priority) : undefined,
          productIds: list(values['product-ids']),
          productTags: list(values.tags),
          startingAt: date(values.starts, '--starts'),
          endingBefore: date(values.ends, '--ends'),
          source: 'operator',
        }),
      ),
    );
  } else if (sub === 'reconcile') {
    const r = await withBilling((b) => b.accounts.reconcile(org));
    printJson(r);
    if (r.problems.length > 0) process.exitCode = 1;
  } else {
    throw new UsageError('ads billing show|ledger|setup|grant|advance|reconcile|recharge-check|provider (see ads help billing)');
  }
}
