/**
 * What the sign-in and consent pages decide (spec 5.5, 5.8, 5.9): who signs in, what the consent page
 * offers, and the grant an approval creates. Protocol-free: the HTTP layer reads the forms and renders.
 */
import type Provider from 'oidc-provider';
import type { OAuthSettings } from '../../config/index.ts';
import type { OrganizationService, UserRow } from '../organizations/index.ts';
import { DYNAMIC_CLIENT_PREFIX, PARTNER_CLIENT_PREFIX } from './clients/ids.ts';
import type { GrantService } from './grants/service.ts';
import type { ClientView, ScopeChoice } from './pages/views.ts';
import {
  IDENTITY_SCOPES,
  PRESELECTED_SCOPES,
  RESOURCE_TITLES,
  SCOPE_DESCRIPTIONS,
  resourceKindOf,
  resourceScopes,
  type ResourceKind,
} from './resources.ts';

export interface ConsentModel {
  client: ClientView;
  resource: { url: string; kind: ResourceKind; title: string };
  person: { userId: string; email: string; orgId: string; organization: string };
  scopes: ScopeChoice[];
}

export function provenanceOf(clientId: string): string {
  if (clientId.startsWith('https://')) return `metadata document at ${new URL(clientId).origin}`;
  if (clientId.startsWith(PARTNER_CLIENT_PREFIX)) return 'registered partner';
  if (clientId.startsWith(DYNAMIC_CLIENT_PREFIX)) return 'registered itself; its name is not verified';
  return 'registered client';
}

const requestedScopes = (params: Record<string, unknown>) =>
  new Set(
    String(params.scope ?? '')
      .split(' ')
      .filter(Boolean),
  );

export function createInteractionService(deps: {
  provider: Provider;
  organizations: OrganizationService;
  grants: GrantService;
  settings: OAuthSettings;
}) {
  const { provider, organizations, grants, settings } = deps;

  async function clientView(clientId: string): Promise<ClientView> {
    const client = await provider.Client.find(clientId).catch(() => undefined);
    return { name: client?.clientName ?? clientId, provenance: provenanceOf(clientId), uri: client?.clientUri ?? null };
  }

  /** The resource an authorization request is for (a confidential client may omit it: the REST API). */
  function resourceOf(params: Record<string, unknown>): string {
    return typeof params.resource === 'string' ? params.resource : settings.resources.api;
  }

  /** Only owners and admins hold the account, so only they can let a client read it (spec 5.8). */
  function unavailable(scope: string, person: UserRow): string | null {
    if (scope === 'account-read' && person.role !== 'owner' && person.role !== 'admin') return 'Only an owner or admin can grant this.';
    return null;
  }

  return {
    clientView,

    /** Active, verified accounts the email and password sign in as, with their organization names. */
    async signIn(email: string, password: string) {
      const users = await organizations.signInCandidates(email, password);
      return Promise.all(
        users.map(async (u) => ({ userId: u.id, organization: (await organizations.findOrganization(u.org_id))?.name ?? u.org_id })),
      );
    },

    async consentModel(params: Record<string, unknown>, accountId: string): Promise<ConsentModel | null> {
      const person = await organizations.findUserById(accountId);
      if (!person || person.status !== 'active' || !person.email_verified_at) return null;
      const url = resourceOf(params);
      const kind = resourceKindOf(settings.resources, url)!;
      const requested = requestedScopes(params);
      const offered = resourceScopes(kind).filter((s) => requested.has(s));
      const org = await organizations.findOrganization(person.org_id);
      return {
        client: await clientView(String(params.client_id)),
        resource: { url, kind, title: RESOURCE_TITLES[kind] },
        person: { userId: person.id, email: person.email, orgId: person.org_id, organization: org?.name ?? person.org_id },
        scopes: offered.map((name) => ({
          name,
          description: SCOPE_DESCRIPTIONS[name] ?? name,
          checked: PRESELECTED_SCOPES.has(name),
          unavailable: unavailable(name, person),
        })),
      };
    },

    /**
     * Records an approval: the chosen scopes (of those offered) are granted, the others rejected, so the
     * library does not ask again for them. Returns the grant id, or null when nothing was granted.
     */
    async approve(input: {
      model: ConsentModel;
      clientId: string;
      existingGrantId?: string;
      chosen: readonly string[];
    }): Promise<string | null> {
      const { model } = input;
      const offered = model.scopes.filter((s) => !s.unavailable).map((s) => s.name);
      const chosen = new Set(input.chosen.filter((s) => offered.includes(s)));
      const identity = offered.filter((s) => (IDENTITY_SCOPES as readonly string[]).includes(s));
      if (!offered.some((s) => chosen.has(s) && !identity.includes(s))) return null; // no capability chosen: a refusal
      // `email` needs `openid` (spec 5.9).
      if (chosen.has('email') && !chosen.has('openid')) chosen.delete('email');
      const existing = input.existingGrantId ? await provider.Grant.find(input.existingGrantId) : undefined;
      const grant = existing ?? new provider.Grant({ accountId: model.person.userId, clientId: input.clientId });
      // Everything requested and offered is either granted or rejected, so the library does not ask again.
      const requested = model.scopes.map((s) => s.name);
      const granted = requested.filter((s) => chosen.has(s));
      const refused = requested.filter((s) => !chosen.has(s));
      if (granted.length) grant.addResourceScope(model.resource.url, granted.join(' '));
      if (refused.length) grant.rejectResourceScope(model.resource.url, refused.join(' '));
      // Identity scopes are also OIDC scopes (id_token, userinfo claims).
      const grantedIdentity = identity.filter((s) => chosen.has(s));
      const refusedIdentity = identity.filter((s) => !chosen.has(s));
      if (grantedIdentity.length) grant.addOIDCScope(grantedIdentity.join(' '));
      if (refusedIdentity.length) grant.rejectOIDCScope(refusedIdentity.join(' '));
      const grantId = await grant.save();
      await grants.annotate(grantId, model.person.orgId, model.client.name);
      return grantId;
    },
  };
}

export type InteractionService = ReturnType<typeof createInteractionService>;
