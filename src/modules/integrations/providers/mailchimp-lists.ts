/**
 * Mailchimp audiences for activation runs (Marketing API v3):
 *   account      GET  /3.0/ -> account_name, email, contact {company, addr1, addr2, city, state, zip, country}
 *   create       POST /3.0/lists {name, contact, permission_reminder, campaign_defaults, email_type_option} -> {id, ...}
 *   add members  POST /3.0/lists/{list_id} {members: [{email_address, status: 'transactional', merge_fields}], update_existing: true}
 *                -> {new_members, updated_members, errors: [{email_address, error, error_code}]} (at most 500 members)
 *   delete       DELETE /3.0/lists/{list_id} -> 204
 * Members are added as `transactional`: the audience is for activation, not a marketing opt-in. A member
 * updated rather than created was already in the audience (`unchanged`).
 */
import type { ProviderCall, ProviderResponse } from './http.ts';
import { ProviderError, type ListPushResult, type ProviderLists } from './types.ts';

interface Grant {
  t: string;
  api: string;
}

function fail(what: string, res: ProviderResponse): never {
  const b = res.body ?? {};
  throw new ProviderError(
    res.status === 401 ? 'unauthorized' : 'failed',
    res.status,
    `Mailchimp ${what} answered ${res.status}: ${String(b.title ?? 'no title')}${b.detail ? ` (${String(b.detail).slice(0, 200)})` : ''}`,
  );
}

export function mailchimpLists(call: ProviderCall): ProviderLists {
  const grant = (sealed: string): Grant => JSON.parse(sealed) as Grant;
  const auth = (g: Grant) => ({ authorization: `Bearer ${g.t}` });
  return {
    pushBatchSize: 500,

    async createList(sealed, name) {
      const g = grant(sealed);
      const root = await call('GET', `${g.api}/3.0/`, { headers: auth(g) });
      if (root.status !== 200) fail('account read', root);
      const c = root.body.contact ?? {};
      const res = await call('POST', `${g.api}/3.0/lists`, {
        headers: auth(g),
        json: {
          name,
          contact: {
            company: c.company ?? root.body.account_name,
            address1: c.addr1 ?? '',
            address2: c.addr2 ?? '',
            city: c.city ?? '',
            state: c.state ?? '',
            zip: c.zip ?? '',
            country: c.country ?? 'US',
          },
          permission_reminder: 'You are in this audience because of your relationship with us.',
          campaign_defaults: {
            from_name: String(root.body.account_name ?? 'Audience'),
            from_email: String(root.body.email ?? ''),
            subject: '',
            language: 'en',
          },
          email_type_option: false,
        },
      });
      if (res.status !== 200) fail('audience creation', res);
      return String(res.body.id);
    },

    async addMembers(sealed, listId, members) {
      const g = grant(sealed);
      const res = await call('POST', `${g.api}/3.0/lists/${encodeURIComponent(listId)}`, {
        headers: auth(g),
        json: {
          members: members.map((m) => ({
            email_address: m.email,
            status: 'transactional',
            merge_fields: {
              ...(m.contact.properties.FNAME ? { FNAME: m.contact.properties.FNAME } : {}),
              ...(m.contact.properties.LNAME ? { LNAME: m.contact.properties.LNAME } : {}),
              ...m.properties,
            },
          })),
          update_existing: true,
        },
      });
      if (res.status !== 200) fail('batch subscribe', res);
      const idOf = new Map(members.map((m) => [m.email.toLowerCase(), m.contact.id]));
      const ids = (list: unknown) =>
        ((list ?? []) as { email_address: string }[])
          .map((x) => idOf.get(String(x.email_address).toLowerCase()))
          .filter((x): x is string => !!x);
      const result: ListPushResult = { applied: ids(res.body.new_members), unchanged: ids(res.body.updated_members), failed: [] };
      for (const e of (res.body.errors ?? []) as { email_address: string; error: string }[]) {
        const id = idOf.get(String(e.email_address).toLowerCase());
        if (id) result.failed.push({ id, message: String(e.error).slice(0, 200) });
      }
      const seen = new Set([...result.applied, ...result.unchanged, ...result.failed.map((f) => f.id)]);
      for (const m of members)
        if (!seen.has(m.contact.id)) result.failed.push({ id: m.contact.id, message: "not in the provider's batch answer" });
      return result;
    },

    async deleteList(sealed, listId) {
      const g = grant(sealed);
      const res = await call('DELETE', `${g.api}/3.0/lists/${encodeURIComponent(listId)}`, { headers: auth(g) });
      if (res.status !== 204 && res.status !== 404) fail(`audience ${listId} removal`, res);
    },
  };
}
