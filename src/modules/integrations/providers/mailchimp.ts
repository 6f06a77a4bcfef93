/**
 * Mailchimp (mailchimp.com/developer, OAuth 2 and Marketing API v3):
 *   consent      GET  https://login.mailchimp.com/oauth2/authorize?response_type=code&client_id&redirect_uri&state
 *   token        POST https://login.mailchimp.com/oauth2/token (form: grant_type authorization_code) -> access_token, expires_in 0
 *   metadata     GET  https://login.mailchimp.com/oauth2/metadata (Authorization: OAuth <token>) -> dc, api_endpoint
 *   account      GET  {api_endpoint}/3.0/ -> account_id, account_name
 *   audiences    GET  /3.0/lists?count&offset; members GET /3.0/lists/{id}/members?count&offset -> members, total_items
 *   merge fields GET/POST /3.0/lists/{id}/merge-fields, DELETE /3.0/lists/{id}/merge-fields/{merge_id}
 *   write back   PATCH /3.0/lists/{id}/members/{subscriber_hash} {merge_fields} (subscriber_hash: md5 of the lowercased email)
 * Errors are application/problem+json {type, title, status, detail, instance}; 401 means the token was revoked
 * (Mailchimp tokens do not expire and there is no refresh token: the customer reconnects).
 *
 * The API host depends on the account's data center, so the sealed access token carries it
 * (`{"t": token, "api": api_endpoint}`): the api_endpoint the metadata gives must be the configured template
 * filled with its `dc` (https://{dc}.api.mailchimp.com), so a provider answer never redirects calls elsewhere.
 * A contact is one member of one audience, id `<list_id>:<lowercased email>`. A catalog field is written to a
 * text merge field whose tag is `A` + 9 characters derived from the field (tags hold at most 10 characters),
 * created in every audience on first use and deleted again by app_data_policy remove.
 */
import { createHash } from 'node:crypto';
import type { ProviderCall, ProviderResponse } from './http.ts';
import { mailchimpLists } from './mailchimp-lists.ts';
import { ProviderError, type ProviderAdapter, type ProviderContact } from './types.ts';

export interface MailchimpSettings {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  /** https://login.mailchimp.com (the stand-in in tests). */
  loginUrl: string;
  /** https://{dc}.api.mailchimp.com (the stand-in in tests). */
  apiEndpointTemplate: string;
}

/** Mailchimp access tokens do not expire; the connection dates them this far ahead (never refreshed). */
export const NON_EXPIRING_SECONDS = 10 * 365 * 24 * 3600;
const MEMBER_FIELDS = 'members.email_address,members.status,members.merge_fields,total_items';

export const subscriberHash = (email: string) => createHash('md5').update(email.toLowerCase()).digest('hex');

/** The merge tag of a catalog field: `A`, the field's first 5 letters or digits, and 4 hex characters of its hash. */
export function mergeTag(field: string): string {
  const letters = field
    .toUpperCase()
    .replace(/[^A-Z0-9]/g, '')
    .slice(0, 5);
  return `A${letters}${createHash('sha256').update(field).digest('hex').slice(0, 4).toUpperCase()}`;
}

function fail(what: string, res: ProviderResponse): never {
  const b = res.body ?? {};
  const message = `Mailchimp ${what} answered ${res.status}: ${String(b.title ?? b.error ?? 'no title')}${b.detail || b.error_description ? ` (${String(b.detail ?? b.error_description).slice(0, 200)})` : ''}`;
  throw new ProviderError(res.status === 401 ? 'unauthorized' : 'failed', res.status, message);
}

interface Grant {
  t: string;
  api: string;
}

export function mailchimpAdapter(settings: MailchimpSettings, call: ProviderCall): ProviderAdapter {
  const login = settings.loginUrl.replace(/\/+$/, '');
  const grant = (sealed: string): Grant => JSON.parse(sealed) as Grant;
  const auth = (g: Grant) => ({ authorization: `Bearer ${g.t}` });
  /** Tags this adapter derived, with their fields (for the merge field's label). */
  const fieldOfTag = new Map<string, string>();

  async function lists(g: Grant): Promise<string[]> {
    const res = await call('GET', `${g.api}/3.0/lists?count=1000&offset=0&fields=lists.id,total_items`, { headers: auth(g) });
    if (res.status !== 200) fail('audience list', res);
    return (res.body.lists as { id: string }[]).map((l) => l.id);
  }

  async function mergeFields(g: Grant, listId: string): Promise<{ merge_id: number; tag: string }[]> {
    const res = await call('GET', `${g.api}/3.0/lists/${listId}/merge-fields?count=1000&offset=0`, { headers: auth(g) });
    if (res.status !== 200) fail('merge field list', res);
    return res.body.merge_fields as { merge_id: number; tag: string }[];
  }

  return {
    provider: 'mailchimp',
    writeBatchSize: 50,

    authorizationUrl(state) {
      const url = new URL(`${login}/oauth2/authorize`);
      url.searchParams.set('response_type', 'code');
      url.searchParams.set('client_id', settings.clientId);
      url.searchParams.set('redirect_uri', settings.redirectUri);
      url.searchParams.set('state', state);
      return url.toString();
    },

    async exchangeCode(code) {
      const res = await call('POST', `${login}/oauth2/token`, {
        form: {
          grant_type: 'authorization_code',
          client_id: settings.clientId,
          client_secret: settings.clientSecret,
          redirect_uri: settings.redirectUri,
          code,
        },
      });
      if (res.status !== 200) {
        throw new ProviderError(
          res.status === 400 || res.status === 401 ? 'unauthorized' : 'failed',
          res.status,
          `Mailchimp code exchange answered ${res.status}: ${String(res.body?.error ?? '')} ${String(res.body?.error_description ?? '')}`.trim(),
        );
      }
      const token = String(res.body.access_token);
      const meta = await call('GET', `${login}/oauth2/metadata`, { headers: { authorization: `OAuth ${token}` } });
      if (meta.status !== 200) fail('metadata', meta);
      const dc = String(meta.body.dc ?? '');
      const api = settings.apiEndpointTemplate.replace('{dc}', dc).replace(/\/+$/, '');
      if (!/^[a-z0-9]{1,10}$/.test(dc) || String(meta.body.api_endpoint ?? '').replace(/\/+$/, '') !== api) {
        throw new ProviderError('failed', 200, `Mailchimp metadata gave an unexpected API endpoint for data center "${dc.slice(0, 20)}"`);
      }
      const g: Grant = { t: token, api };
      const root = await call('GET', `${api}/3.0/`, { headers: auth(g) });
      if (root.status !== 200) fail('account read', root);
      return {
        accessToken: JSON.stringify(g),
        refreshToken: '',
        expiresInSeconds: NON_EXPIRING_SECONDS,
        accountId: String(root.body.account_id),
        displayName: root.body.account_name ?? meta.body.accountname ?? null,
      };
    },

    async refresh() {
      throw new ProviderError('unauthorized', 401, 'Mailchimp refused the access token and has no refresh grant: reconnect the account');
    },

    /** Pages through every audience's members: the cursor is `<audience index>:<offset>`. */
    async readContacts(sealed, input) {
      const g = grant(sealed);
      const ids = await lists(g);
      let [index, offset] = (input.after ?? '0:0').split(':').map(Number) as [number, number];
      if (index >= ids.length) return { contacts: [], after: null };
      const listId = ids[index]!;
      const res = await call('GET', `${g.api}/3.0/lists/${listId}/members?count=${input.limit}&offset=${offset}&fields=${MEMBER_FIELDS}`, {
        headers: auth(g),
      });
      if (res.status !== 200) fail('member read', res);
      const members = res.body.members as { email_address: string; merge_fields: Record<string, unknown> }[];
      const contacts: ProviderContact[] = members.map((m) => {
        const properties: Record<string, string | null> = { email_address: m.email_address };
        for (const [tag, value] of Object.entries(m.merge_fields ?? {})) {
          if (value && typeof value === 'object') {
            for (const [part, v] of Object.entries(value as Record<string, unknown>))
              properties[`${tag}.${part}`] = v === '' || v === null ? null : String(v);
          } else properties[tag] = value === '' || value === null || value === undefined ? null : String(value);
        }
        return { id: `${listId}:${m.email_address.toLowerCase()}`, properties };
      });
      offset += members.length;
      const more = members.length > 0 && offset < Number(res.body.total_items ?? 0);
      const after = more ? `${index}:${offset}` : index + 1 < ids.length ? `${index + 1}:0` : null;
      return { contacts, after };
    },

    async ensureProperties(sealed, tags) {
      const g = grant(sealed);
      for (const listId of await lists(g)) {
        const existing = new Set((await mergeFields(g, listId)).map((f) => f.tag));
        for (const tag of tags.filter((x) => !existing.has(x))) {
          const res = await call('POST', `${g.api}/3.0/lists/${listId}/merge-fields`, {
            headers: auth(g),
            json: { tag, name: `ADS ${(fieldOfTag.get(tag) ?? tag).replace(/_/g, ' ')}`, type: 'text', required: false, public: false },
          });
          if (res.status !== 200) fail(`merge field ${tag} creation`, res);
        }
      }
    },

    /** One PATCH per member (updates only: a member gone since the read is a failed write, never re-created). */
    async writeBack(sealed, updates) {
      const g = grant(sealed);
      const applied: string[] = [];
      const failed: { id: string; message: string }[] = [];
      for (const u of updates) {
        const split = u.id.indexOf(':');
        const listId = u.id.slice(0, split);
        const email = u.id.slice(split + 1);
        const res = await call('PATCH', `${g.api}/3.0/lists/${listId}/members/${subscriberHash(email)}`, {
          headers: auth(g),
          json: { merge_fields: u.properties },
        });
        if (res.status === 200) applied.push(u.id);
        else if (res.status === 400 || res.status === 404)
          failed.push({ id: u.id, message: `${String(res.body?.title ?? res.status)}: ${String(res.body?.detail ?? '').slice(0, 200)}` });
        else fail('member update', res);
      }
      return { applied, failed };
    },

    /** Deletes the merge fields this service created (their values go with them) in every audience. */
    async cleanup(sealed, tags) {
      const g = grant(sealed);
      const wanted = new Set(tags);
      for (const listId of await lists(g)) {
        for (const field of (await mergeFields(g, listId)).filter((f) => wanted.has(f.tag))) {
          const res = await call('DELETE', `${g.api}/3.0/lists/${listId}/merge-fields/${field.merge_id}`, { headers: auth(g) });
          if (res.status !== 204 && res.status !== 404) fail(`merge field ${field.tag} removal`, res);
        }
      }
    },

    /** Mailchimp has no token revocation endpoint (the account owner removes the app); the service deletes its copy. */
    async revoke() {},

    matchRecord(contact) {
      const p = contact.properties;
      const pairs: [string, string | null | undefined][] = [
        ['email', p.email_address],
        ['first_name', p.FNAME],
        ['last_name', p.LNAME],
        ['phone', p.PHONE],
        ['address_1', p['ADDRESS.addr1']],
        ['city', p['ADDRESS.city']],
        ['state', p['ADDRESS.state']],
        ['zip', p['ADDRESS.zip']],
      ];
      const record: Record<string, string> = {};
      for (const [field, value] of pairs) if (typeof value === 'string' && value.trim() !== '') record[field] = value.trim();
      return record;
    },

    propertyName(field) {
      const tag = mergeTag(field);
      fieldOfTag.set(tag, field);
      return tag;
    },

    lists: mailchimpLists(call),
  };
}
