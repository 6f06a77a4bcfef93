import { TIERS, type Tier } from '../../config.ts';
import type { Clock } from '../../lib/clock.ts';
import { newId, randomBase62 } from '../../lib/ids.ts';
import { AppError } from '../../http/errors.ts';
import type { OrganizationRow, OrganizationStore, OrgRole, UserRow } from './store.ts';

export const ORG_ROLES: readonly OrgRole[] = ['owner', 'admin', 'member'];

/** A short upper-case code per organization: the CLIENTCODE part of person ids (naming note). */
function clientCodeFrom(name: string): string {
  const letters = name.toUpperCase().replace(/[^A-Z0-9]/g, '').slice(0, 6);
  return letters.length >= 2 ? letters : `ORG${letters}`;
}

export function createOrganizationService(deps: { store: OrganizationStore; clock: Clock }) {
  const { store, clock } = deps;

  async function uniqueClientCode(name: string): Promise<string> {
    const base = clientCodeFrom(name);
    if (!(await store.clientCodeTaken(base))) return base;
    for (;;) {
      const candidate = `${base.slice(0, 6)}${randomBase62(3).toUpperCase()}`;
      if (!(await store.clientCodeTaken(candidate))) return candidate;
    }
  }

  return {
    async createOrganization(input: { name: string; tier?: string }): Promise<OrganizationRow> {
      const name = input.name.trim();
      if (!name || name.length > 200) throw new AppError('INVALID_REQUEST', 400, 'Organization name must be 1-200 characters.');
      const tier = (input.tier ?? 'pilot') as Tier;
      if (!TIERS.includes(tier)) throw new AppError('INVALID_REQUEST', 400, `Unknown tier "${input.tier}"; one of ${TIERS.join(', ')}.`);
      const row: OrganizationRow = {
        id: newId('org'),
        name,
        tier,
        client_code: await uniqueClientCode(name),
        created_at: clock.now(),
      };
      await store.insertOrganization(row);
      return row;
    },

    async addUser(input: { orgId: string; email: string; role: string }): Promise<UserRow> {
      if (!(await store.findOrganization(input.orgId))) throw new AppError('NOT_FOUND', 404, `Organization ${input.orgId} was not found.`);
      if (!ORG_ROLES.includes(input.role as OrgRole)) {
        throw new AppError('INVALID_REQUEST', 400, `Role must be one of ${ORG_ROLES.join(', ')}.`);
      }
      const email = input.email.trim().toLowerCase();
      if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw new AppError('INVALID_REQUEST', 400, `"${input.email}" is not an email address.`);
      const row: UserRow = { id: newId('usr'), org_id: input.orgId, email, role: input.role as OrgRole, status: 'active', created_at: clock.now() };
      await store.insertUser(row);
      return row;
    },

    findOrganization: (orgId: string) => store.findOrganization(orgId),
    findUser: (orgId: string, userId: string) => store.findUser(orgId, userId),
    firstOwner: (orgId: string) => store.firstOwner(orgId),
    setTier: (orgId: string, tier: Tier) => store.updateTier(orgId, tier),
    countOrganizations: () => store.countOrganizations(),
  };
}

export type OrganizationService = ReturnType<typeof createOrganizationService>;
