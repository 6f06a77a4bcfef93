/**
 * OAuth grants as an organization's owners see them: which client acts for which person, on which
 * resource with which scopes; revoking one ends its refresh and access tokens at once (spec 5.9, 5.12).
 */
import { DomainError } from '../../../core/errors.ts';
import type { Clock } from '../../../lib/clock.ts';
import type { OrganizationService } from '../../organizations/index.ts';
import type { RecordRow, RecordStore } from '../oidc-provider/record-store.ts';

export interface GrantView {
  id: string;
  client_id: string;
  client_name: string;
  user_id: string;
  user_email: string | null;
  resources: { resource: string; scopes: string[] }[];
  identity_scopes: string[];
  created_at: Date;
  expires_at: Date | null;
}

interface GrantPayload {
  accountId?: string;
  clientId?: string;
  openid?: { scope?: string };
  resources?: Record<string, string>;
}

export function createGrantService(deps: { store: RecordStore; organizations: OrganizationService; clock: Clock }) {
  const { store, organizations, clock } = deps;

  function view(row: RecordRow, emails: Map<string, string>): GrantView {
    const payload = row.payload as GrantPayload;
    return {
      id: row.key,
      client_id: payload.clientId ?? row.client_id ?? '',
      client_name: row.client_name ?? payload.clientId ?? '',
      user_id: payload.accountId ?? '',
      user_email: emails.get(payload.accountId ?? '') ?? null,
      resources: Object.entries(payload.resources ?? {}).map(([resource, scope]) => ({
        resource,
        scopes: scope.split(' ').filter(Boolean),
      })),
      identity_scopes: String(payload.openid?.scope ?? '')
        .split(' ')
        .filter(Boolean),
      created_at: row.created_at,
      expires_at: row.expires_at,
    };
  }

  return {
    async list(orgId: string): Promise<GrantView[]> {
      const [rows, users] = await Promise.all([store.listGrants(orgId, clock.now()), organizations.listUsers(orgId)]);
      const emails = new Map(users.map((u) => [u.id, u.email]));
      return rows.map((row) => view(row, emails));
    },

    async revoke(orgId: string, grantId: string): Promise<void> {
      const row = await store.find('Grant', grantId);
      if (!row || row.org_id !== orgId) {
        throw new DomainError('OAUTH_GRANT_NOT_FOUND', `OAuth grant ${grantId} was not found.`, {
          nextStep: 'List the grants with GET /v1/settings/oauth-grants.',
        });
      }
      await store.revokeGrant(grantId);
    },

    /** Ends every grant a person approved (their removal or suspension). */
    async revokeForUser(userId: string): Promise<number> {
      const ids = await store.grantIdsOfAccount(userId);
      for (const id of ids) await store.revokeGrant(id);
      return ids.length;
    },

    annotate: (grantId: string, orgId: string, clientName: string) => store.annotateGrant(grantId, orgId, clientName),
  };
}

export type GrantService = ReturnType<typeof createGrantService>;
