/**
 * Pre-registered partner clients (spec 5.6): registered by an operator (`ads oauth-clients create`),
 * confidential by default (client_secret_basic, the secret shown once and kept in the secret store) or
 * public. Validated by the provider's own client rules before they are stored.
 */
import type Provider from 'oidc-provider';
import { randomBase62 } from '../../../lib/ids.ts';
import { PARTNER_CLIENT_PREFIX, partnerClientId } from './ids.ts';

export interface PartnerClientInput {
  name: string;
  redirectUris: string[];
  /** Confidential (a secret) unless false. */
  confidential?: boolean;
  /** `native` lets loopback redirect URIs take any port (RFC 8252). */
  applicationType?: 'web' | 'native';
}

export interface RegisteredPartner {
  client_id: string;
  client_secret: string | null;
  client_name: string;
  redirect_uris: string[];
  token_endpoint_auth_method: string;
}

export async function registerPartnerClient(provider: Provider, input: PartnerClientInput): Promise<RegisteredPartner> {
  const confidential = input.confidential !== false;
  const clientId = partnerClientId();
  const secret = confidential ? randomBase62(48) : null;
  const metadata = {
    client_id: clientId,
    client_name: input.name,
    redirect_uris: input.redirectUris,
    application_type: input.applicationType ?? 'web',
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: confidential ? 'client_secret_basic' : 'none',
    ...(secret ? { client_secret: secret } : {}),
  };
  await provider.Client.validate(metadata as never);
  await (provider.Client as unknown as { adapter: { upsert(id: string, payload: object): Promise<void> } }).adapter.upsert(
    clientId,
    metadata,
  );
  return {
    client_id: clientId,
    client_secret: secret,
    client_name: input.name,
    redirect_uris: input.redirectUris,
    token_endpoint_auth_method: metadata.token_endpoint_auth_method,
  };
}

/** What other areas may know of a token's client: whether it is a pre-registered partner, and confidential. */
export interface ClientStanding {
  clientId: string;
  name: string | null;
  /** Registered by an operator (`ads oauth-clients create`), not dynamically or by a metadata document. */
  partner: boolean;
  /** Authenticates at the token endpoint with a secret (not `none`). */
  confidential: boolean;
}

export async function clientStanding(
  store: { find(model: string, key: string): Promise<{ payload: unknown } | undefined> },
  clientId: string,
): Promise<ClientStanding | null> {
  const row = await store.find('Client', clientId);
  if (!row) return null;
  const payload = (typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload) as {
    client_name?: string;
    token_endpoint_auth_method?: string;
  };
  return {
    clientId,
    name: payload.client_name ?? null,
    partner: clientId.startsWith(PARTNER_CLIENT_PREFIX),
    confidential: (payload.token_endpoint_auth_method ?? 'client_secret_basic') !== 'none',
  };
}
