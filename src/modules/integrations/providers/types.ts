/**
 * The provider adapter: everything the integrations area needs from one outbound provider, in the
 * provider's own terms. A new provider is a new file implementing this, added to the registry
 * (providers/index.ts); connections and runs do not change.
 */
export interface ProviderTokens {
  accessToken: string;
  refreshToken: string;
  /** Seconds the access token lives from now (the service dates it with its clock). */
  expiresInSeconds: number;
}

export interface ProviderAccount {
  /** The provider's id of the connected account (HubSpot: the portal's hub_id). */
  accountId: string;
  displayName: string | null;
}

export interface ProviderContact {
  id: string;
  properties: Record<string, string | null>;
}

export interface WriteBackResult {
  applied: string[];
  failed: { id: string; message: string }[];
}

/** How a provider call failed: `unauthorized` (token expired or revoked), `rate_limited` (after retries), `failed`. */
export class ProviderError extends Error {
  constructor(
    readonly kind: 'unauthorized' | 'rate_limited' | 'failed',
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

export interface ProviderAdapter {
  readonly provider: string;
  /** The provider's consent page for this authorization. */
  authorizationUrl(state: string): string;
  /** Exchanges an authorization code for tokens and reads which account they belong to. */
  exchangeCode(code: string): Promise<ProviderTokens & ProviderAccount>;
  refresh(refreshToken: string): Promise<ProviderTokens>;
  /** One page of contacts with the properties matching needs and the ones enrichment writes. */
  readContacts(
    accessToken: string,
    input: { after: string | null; limit: number; properties: string[] },
  ): Promise<{ contacts: ProviderContact[]; after: string | null }>;
  /** Creates the enrichment properties on the provider if they do not exist yet. */
  ensureProperties(accessToken: string, names: string[]): Promise<void>;
  /** Writes property values back to contacts (one batch, at most `writeBatchSize` updates). */
  writeBack(accessToken: string, updates: { id: string; properties: Record<string, string> }[]): Promise<WriteBackResult>;
  readonly writeBatchSize: number;
  /** Removes what this service created on the provider (app_data_policy remove). */
  cleanup(accessToken: string, propertyNames: string[]): Promise<void>;
  /** Ends the refresh token at the provider (best effort on disconnect). */
  revoke(refreshToken: string): Promise<void>;
  /** Match input fields of a contact (the matching service's record shape). */
  matchRecord(contact: ProviderContact): Record<string, string>;
  /** The provider property an enrichment field is written to. */
  propertyName(field: string): string;
  /** Lists for activation runs (a provider without them refuses activation). */
  readonly lists?: ProviderLists;
}

/** One provider contact an activation adds to a list, with the property values to write on it (provider names). */
export interface ListMember {
  contact: ProviderContact;
  email: string;
  properties: Record<string, string>;
}

/** Per contact id: added to the list now, already a member, or refused by the provider. */
export interface ListPushResult {
  applied: string[];
  unchanged: string[];
  failed: { id: string; message: string }[];
}

/** Lists (audiences) for activation runs: a HubSpot static list, a Mailchimp audience. */
export interface ProviderLists {
  readonly pushBatchSize: number;
  /** Creates a list; returns its provider id. */
  createList(accessToken: string, name: string): Promise<string>;
  /** Writes the members' properties and adds them to the list (one batch, at most `pushBatchSize`). */
  addMembers(accessToken: string, listId: string, members: ListMember[]): Promise<ListPushResult>;
  /** Deletes a list this service created (app_data_policy remove); a list already gone is fine. */
  deleteList(accessToken: string, listId: string): Promise<void>;
}
