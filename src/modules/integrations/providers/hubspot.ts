/**
 * HubSpot CRM (developers.hubspot.com, CRM API v3 and OAuth v1):
 *   consent      GET  {authorize}?client_id&redirect_uri&scope&state
 *   tokens       POST /oauth/v1/token (form: grant_type authorization_code | refresh_token)
 *   token info   GET  /oauth/v1/access-tokens/{token}  -> hub_id, hub_domain
 *   revoke       DELETE /oauth/v1/refresh-tokens/{token}
 *   contacts     GET  /crm/v3/objects/contacts?limit&after&properties -> results, paging.next.after
 *   properties   POST /crm/v3/properties/contacts (409 when it exists), DELETE /crm/v3/properties/contacts/{name}
 *   write back   POST /crm/v3/objects/contacts/batch/update {inputs: [{id, properties}]} -> 200, or 207 with errors
 * Errors carry {status: 'error', message, category}; 401 means the access token expired or was revoked.
 */
import type { ProviderCall, ProviderResponse } from './http.ts';
import { hubspotLists } from './hubspot-lists.ts';
import { ProviderError, type ProviderAdapter, type ProviderContact, type ProviderTokens } from './types.ts';

export interface HubSpotSettings {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  apiBaseUrl: string;
  authorizeUrl: string;
}

const SCOPES = ['crm.objects.contacts.read', 'crm.objects.contacts.write', 'crm.schemas.contacts.write', 'oauth'];
/** Contact properties read for matching. */
const MATCH_PROPERTIES: Record<string, string> = {
  firstname: 'first_name',
  lastname: 'last_name',
  email: 'email',
  phone: 'phone',
  address: 'address_1',
  city: 'city',
  state: 'state',
  zip: 'zip',
};
const PROPERTY_PREFIX = 'ads_';
const GROUP = 'contactinformation';

function fail(what: string, res: ProviderResponse): never {
  const message = `HubSpot ${what} answered ${res.status}: ${String(res.body?.message ?? 'no message').slice(0, 200)}`;
  throw new ProviderError(res.status === 401 ? 'unauthorized' : 'failed', res.status, message);
}

export function hubspotAdapter(settings: HubSpotSettings, call: ProviderCall): ProviderAdapter {
  const api = settings.apiBaseUrl.replace(/\/+$/, '');
  const auth = (token: string) => ({ authorization: `Bearer ${token}` });

  async function tokenRequest(form: Record<string, string>, what: string): Promise<ProviderTokens> {
    const res = await call('POST', `${api}/oauth/v1/token`, {
      form: { ...form, client_id: settings.clientId, client_secret: settings.clientSecret },
    });
    if (res.status !== 200) {
      // An invalid or revoked grant is the customer's to fix (reconnect), not a transient failure.
      throw new ProviderError(
        res.status === 400 || res.status === 401 ? 'unauthorized' : 'failed',
        res.status,
        `HubSpot ${what} answered ${res.status}: ${String(res.body?.message ?? '').slice(0, 200)}`,
      );
    }
    const b = res.body as { access_token: string; refresh_token: string; expires_in: number };
    return { accessToken: b.access_token, refreshToken: b.refresh_token, expiresInSeconds: b.expires_in };
  }

  return {
    provider: 'hubspot',
    writeBatchSize: 100,

    authorizationUrl(state) {
      const url = new URL(settings.authorizeUrl);
      url.searchParams.set('client_id', settings.clientId);
      url.searchParams.set('redirect_uri', settings.redirectUri);
      url.searchParams.set('scope', SCOPES.join(' '));
      url.searchParams.set('state', state);
      return url.toString();
    },

    async exchangeCode(code) {
      const tokens = await tokenRequest({ grant_type: 'authorization_code', redirect_uri: settings.redirectUri, code }, 'code exchange');
      const info = await call('GET', `${api}/oauth/v1/access-tokens/${encodeURIComponent(tokens.accessToken)}`);
      if (info.status !== 200) fail('token info', info);
      return { ...tokens, accountId: String(info.body.hub_id), displayName: info.body.hub_domain ?? null };
    },

    refresh: (refreshToken) => tokenRequest({ grant_type: 'refresh_token', refresh_token: refreshToken }, 'token refresh'),

    async readContacts(token, input) {
      const url = new URL(`${api}/crm/v3/objects/contacts`);
      url.searchParams.set('limit', String(input.limit));
      if (input.after) url.searchParams.set('after', input.after);
      url.searchParams.set('properties', [...Object.keys(MATCH_PROPERTIES), ...input.properties].join(','));
      const res = await call('GET', url.toString(), { headers: auth(token) });
      if (res.status !== 200) fail('contact read', res);
      const contacts: ProviderContact[] = (res.body.results as { id: string; properties: Record<string, string | null> }[]).map((r) => ({
        id: String(r.id),
        properties: r.properties ?? {},
      }));
      return { contacts, after: res.body.paging?.next?.after ?? null };
    },

    async ensureProperties(token, names) {
      for (const name of names) {
        const res = await call('POST', `${api}/crm/v3/properties/contacts`, {
          headers: auth(token),
          json: {
            name,
            label: `ADS ${name.slice(PROPERTY_PREFIX.length).replace(/_/g, ' ')}`,
            type: 'string',
            fieldType: 'text',
            groupName: GROUP,
          },
        });
        if (res.status !== 201 && res.status !== 409) fail(`property ${name} creation`, res);
      }
    },

    async writeBack(token, updates) {
      const res = await call('POST', `${api}/crm/v3/objects/contacts/batch/update`, { headers: auth(token), json: { inputs: updates } });
      if (res.status !== 200 && res.status !== 207) fail('batch update', res);
      const failed = new Map<string, string>();
      for (const e of (res.body.errors ?? []) as { message: string; context?: { ids?: string[] } }[]) {
        for (const id of e.context?.ids ?? []) failed.set(String(id), String(e.message).slice(0, 200));
      }
      const applied = new Set(((res.body.results ?? []) as { id: string }[]).map((r) => String(r.id)));
      return {
        applied: updates.map((u) => u.id).filter((id) => applied.has(id) && !failed.has(id)),
        failed: updates
          .filter((u) => !applied.has(u.id) || failed.has(u.id))
          .map((u) => ({ id: u.id, message: failed.get(u.id) ?? "not in the provider's results" })),
      };
    },

    async cleanup(token, propertyNames) {
      for (const name of propertyNames) {
        const res = await call('DELETE', `${api}/crm/v3/properties/contacts/${encodeURIComponent(name)}`, { headers: auth(token) });
        if (res.status !== 204 && res.status !== 404) fail(`property ${name} removal`, res);
      }
    },

    async revoke(refreshToken) {
      await call('DELETE', `${api}/oauth/v1/refresh-tokens/${encodeURIComponent(refreshToken)}`);
    },

    matchRecord(contact) {
      const record: Record<string, string> = {};
      for (const [property, field] of Object.entries(MATCH_PROPERTIES)) {
        const value = contact.properties[property];
        if (typeof value === 'string' && value.trim() !== '') record[field] = value.trim();
      }
      return record;
    },

    propertyName: (field) => `${PROPERTY_PREFIX}${field}`,

    lists: hubspotLists(api, call),
  };
}
