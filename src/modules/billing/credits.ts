/**
 * Credits and commits (Metronome's model, docs/decisions/030-billing-ledger-and-credits.md): grants with
 * an access window, applicability by product id or tag, a priority and a kind. Usage at time t draws
 * down the grants active at t that apply to its product, in this order: priority (lower first), then
 * promotional credits before paid commits, then the narrowest scope (fewest applicable ids and tags; a
 * grant applicable to everything is the widest), then the earliest `ending_before`, then the earliest
 * `starting_at`, then id. Each draw is a `credit_draws` row, so balances reconcile with the ledger.
 */
import type { Kysely, Selectable } from 'kysely';
import type { CreditGrantsTable, DB } from '../../db/schema.ts';
import { newId } from '../../lib/ids.ts';

export type GrantRow = Selectable<CreditGrantsTable>;
export const GRANT_KINDS = ['paid_commit', 'promotional_credit'] as const;
export type GrantKind = (typeof GRANT_KINDS)[number];

/** The product family of a usage kind (`audience_delivery.filter` -> `audience_delivery`) and its tags. */
export function productOf(kind: string): { ids: string[]; tags: string[] } {
  const family = kind.split('.')[0]!;
  const tags = ['usage', family === 'match' ? 'match' : 'delivery'];
  return { ids: [kind, family], tags };
}

const parseList = (text: string): string[] => JSON.parse(text) as string[];

export function applies(grant: GrantRow, kind: string): boolean {
  const ids = parseList(grant.applicable_product_ids);
  const tags = parseList(grant.applicable_product_tags);
  if (ids.length === 0 && tags.length === 0) return true;
  const p = productOf(kind);
  return p.ids.some((i) => ids.includes(i)) || p.tags.some((t) => tags.includes(t));
}

export const isActive = (g: GrantRow, at: Date): boolean =>
  new Date(g.starting_at).getTime() <= at.getTime() && at.getTime() < new Date(g.ending_before).getTime();

function scopeWidth(g: GrantRow): number {
  const n = parseList(g.applicable_product_ids).length + parseList(g.applicable_product_tags).length;
  return n === 0 ? Number.POSITIVE_INFINITY : n;
}

/** The burn-down order (see the module comment). */
export function burnOrder(a: GrantRow, b: GrantRow): number {
  return (
    a.priority - b.priority ||
    (a.kind === b.kind ? 0 : a.kind === 'promotional_credit' ? -1 : 1) ||
    (scopeWidth(a) === scopeWidth(b) ? 0 : scopeWidth(a) < scopeWidth(b) ? -1 : 1) ||
    new Date(a.ending_before).getTime() - new Date(b.ending_before).getTime() ||
    new Date(a.starting_at).getTime() - new Date(b.starting_at).getTime() ||
    (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  );
}

export const creditStore = {
  insert: (db: Kysely<DB>, row: GrantRow) => db.insertInto('credit_grants').values(row).execute(),

  list: (db: Kysely<DB>, orgId: string) =>
    db.selectFrom('credit_grants').selectAll().where('org_id', '=', orgId).orderBy('created_at').orderBy('id').execute(),

  /** Grants with a balance left and an access window containing `at`, locked for the draw (FOR UPDATE). */
  activeForUpdate: (db: Kysely<DB>, orgId: string, at: Date) =>
    db
      .selectFrom('credit_grants')
      .selectAll()
      .where('org_id', '=', orgId)
      .where('remaining_cents', '>', 0)
      .where('starting_at', '<=', at)
      .where('ending_before', '>', at)
      .orderBy('id')
      .forUpdate()
      .execute(),

  draws: (db: Kysely<DB>, orgId: string) =>
    db.selectFrom('credit_draws').selectAll().where('org_id', '=', orgId).orderBy('created_at').orderBy('id').execute(),
};

/** Cents available to usage of `kind` at `at` (sum of remaining balances of applicable active grants). */
export function available(grants: GrantRow[], kind: string, at: Date): number {
  return grants.filter((g) => isActive(g, at) && applies(g, kind)).reduce((s, g) => s + g.remaining_cents, 0);
}

/**
 * Draws `cents` for a ledger entry from the applicable grants, in burn-down order, inside `trx`.
 * Returns the cents covered (the rest is not covered by credits).
 */
export async function drawDown(
  trx: Kysely<DB>,
  input: { orgId: string; ledgerId: string; kind: string; cents: number; at: Date },
): Promise<number> {
  if (input.cents <= 0) return 0;
  const grants = (await creditStore.activeForUpdate(trx, input.orgId, input.at)).filter((g) => applies(g, input.kind)).sort(burnOrder);
  let left = input.cents;
  for (const g of grants) {
    if (left === 0) break;
    const take = Math.min(left, g.remaining_cents);
    await trx
      .updateTable('credit_grants')
      .set({ remaining_cents: g.remaining_cents - take })
      .where('id', '=', g.id)
      .execute();
    await trx
      .insertInto('credit_draws')
      .values({
        id: newId('drw'),
        org_id: input.orgId,
        ledger_id: input.ledgerId,
        grant_id: g.id,
        amount_cents: take,
        created_at: input.at,
      })
      .execute();
    left -= take;
  }
  return input.cents - left;
}
