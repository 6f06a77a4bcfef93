/**
 * The payment-method portal: POST /v1/account/payment-method/portal returns a link to a page served by
 * this service, valid for 15 minutes and for one successful submission, that needs no sign-in (the
 * link is the credential: 32 random bytes, stored only as a SHA-256 hash). The page adds or replaces
 * the card (through the payment provider), collects the billing address and shows the collection
 * history; nothing else can be done there.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import { DomainError } from '../../core/errors.ts';
import type { AccountService } from './account.ts';
import { parentBilled } from './account.ts';
import { accountStore } from './accounts-store.ts';
import type { PaymentProvider } from './payment-provider/client.ts';
import type { RechargeService } from './recharge.ts';

export const PORTAL_TTL_SECONDS = 15 * 60;
export const portalPath = (token: string) => `/billing/portal/${token}`;
const hash = (token: string) => createHash('sha256').update(token).digest('hex');

export interface BillingAddress {
  name: string;
  line1: string;
  city: string;
  state: string;
  postal_code: string;
  country: string;
}

export interface PortalView {
  return_url: string;
  payment_method: string | null;
  billing_address: BillingAddress | null;
  history: { created_at: string; amount_cents: number; status: string; error_code: string | null }[];
}

export function createPortalService(deps: {
  db: Kysely<DB>;
  clock: Clock;
  publicUrl: string;
  accounts: AccountService;
  recharge: RechargeService;
  provider: PaymentProvider;
}) {
  const { db, clock, accounts } = deps;

  async function open(token: string) {
    const link = await db.selectFrom('portal_links').selectAll().where('token_hash', '=', hash(token)).executeTakeFirst();
    if (!link || link.used_at !== null || new Date(link.expires_at).getTime() <= clock.now().getTime()) return null;
    return link;
  }

  async function viewOf(orgId: string, returnUrl: string): Promise<PortalView> {
    const a = await accounts.account(orgId);
    return {
      return_url: returnUrl,
      payment_method: a.payment_method_label,
      billing_address: a.billing_address ? (JSON.parse(a.billing_address) as BillingAddress) : null,
      history: (await deps.recharge.history(orgId)).map((h) => ({
        created_at: new Date(h.created_at).toISOString(),
        amount_cents: h.amount_cents,
        status: h.status,
        error_code: h.error_code,
      })),
    };
  }

  return {
    async createLink(orgId: string, returnUrl: string): Promise<{ portal_url: string }> {
      let parsed: URL | null = null;
      try {
        parsed = new URL(returnUrl);
      } catch {
        parsed = null;
      }
      if (!parsed || !['https:', 'http:'].includes(parsed.protocol)) {
        throw new DomainError('INVALID_REQUEST', 'return_url must be an absolute http(s) URL.', {
          issues: [{ path: '$.return_url', code: 'INVALID_VALUE', message: 'An absolute http(s) URL.', suggestions: [] }],
        });
      }
      const a = await accounts.account(orgId);
      if (a.parent_org_id) throw parentBilled();
      const token = randomBytes(32).toString('base64url');
      const now = clock.now();
      await db
        .insertInto('portal_links')
        .values({
          token_hash: hash(token),
          org_id: orgId,
          return_url: returnUrl,
          expires_at: new Date(now.getTime() + PORTAL_TTL_SECONDS * 1000),
          used_at: null,
          created_at: now,
        })
        .execute();
      return { portal_url: `${deps.publicUrl}${portalPath(token)}` };
    },

    /** The page's data, or null when the link is unknown, used or expired. */
    async page(token: string): Promise<PortalView | null> {
      const link = await open(token);
      return link ? viewOf(link.org_id, link.return_url) : null;
    },

    /**
     * Saves the card and address. The link is claimed first (one submission wins); a refused card
     * gives it back so the person can correct the number.
     */
    async submit(
      token: string,
      form: { card_number: string; name: string; line1: string; city: string; state: string; postal_code: string; country: string },
    ): Promise<{ ok: true; view: PortalView } | { ok: false; error: string; view: PortalView | null }> {
      const link = await open(token);
      if (!link) return { ok: false, error: 'gone', view: null };
      const address: BillingAddress = {
        name: form.name.trim(),
        line1: form.line1.trim(),
        city: form.city.trim(),
        state: form.state.trim(),
        postal_code: form.postal_code.trim(),
        country: (form.country.trim() || 'US').toUpperCase(),
      };
      if (
        !address.name ||
        !address.line1 ||
        !address.city ||
        !address.postal_code ||
        address.name.length > 200 ||
        address.line1.length > 200
      ) {
        return { ok: false, error: 'Enter the name and the full billing address.', view: await viewOf(link.org_id, link.return_url) };
      }
      const claim = await db
        .updateTable('portal_links')
        .set({ used_at: clock.now() })
        .where('token_hash', '=', link.token_hash)
        .where('used_at', 'is', null)
        .executeTakeFirst();
      if (Number(claim.numUpdatedRows) !== 1) return { ok: false, error: 'gone', view: null };
      const release = () => db.updateTable('portal_links').set({ used_at: null }).where('token_hash', '=', link.token_hash).execute();
      let pm;
      try {
        pm = await deps.provider.createPaymentMethod({ cardNumber: form.card_number, name: address.name });
      } catch (error) {
        await release();
        throw error;
      }
      if ('error' in pm) {
        await release();
        return { ok: false, error: `The card was refused (${pm.error}).`, view: await viewOf(link.org_id, link.return_url) };
      }
      await accountStore.update(db, link.org_id, {
        payment_method_id: pm.id,
        payment_method_label: pm.label,
        billing_address: JSON.stringify(address),
        updated_at: clock.now(),
      });
      return { ok: true, view: await viewOf(link.org_id, link.return_url) };
    },
  };
}

export type PortalService = ReturnType<typeof createPortalService>;
