import { TIERS, type Tier } from '../../config/index.ts';
import type { Clock } from '../../lib/clock.ts';
import { newId, randomBase62 } from '../../lib/ids.ts';
import { hashPassword, passwordProblem, verifyPassword } from '../../lib/passwords.ts';
import { DomainError } from '../../core/errors.ts';
import type { OrganizationRow, OrganizationStore, OrgRole, UserRow } from './store.ts';

export const ORG_ROLES: readonly OrgRole[] = ['owner', 'admin', 'member'];

/** A short upper-case code per organization: the CLIENTCODE part of person ids (naming note). */
function clientCodeFrom(name: string): string {
  const letters = name
    .toUpperCase()
    .replace(/[^A-Z0-9]/g, '')
    .slice(0, 6);
  return letters.length >= 2 ? letters : `ORG${letters}`;
}

/** Statuses of a user: `invited` until the invitation is accepted; `suspended` and `removed` end every credential. */
export const USER_STATUSES = ['active', 'invited', 'suspended', 'removed'] as const;
export type UserStatus = (typeof USER_STATUSES)[number];

export function createOrganizationService(deps: { store: OrganizationStore; clock: Clock; passwordScryptLogN?: number }) {
  const { store, clock } = deps;
  const logN = deps.passwordScryptLogN ?? 17;

  async function uniqueClientCode(name: string): Promise<string> {
    const base = clientCodeFrom(name);
    if (!(await store.clientCodeTaken(base))) return base;
    for (;;) {
      const candidate = `${base.slice(0, 6)}${randomBase62(3).toUpperCase()}`;
      if (!(await store.clientCodeTaken(candidate))) return candidate;
    }
  }

  /** Sets (or replaces) a user's password: 12 to 200 characters, stored as an scrypt hash. */
  async function setPassword(userId: string, password: string): Promise<void> {
    const problem = passwordProblem(password);
    if (problem) throw new DomainError('INVALID_REQUEST', problem, { nextStep: 'Choose a password of 12 to 200 characters.' });
    if (!(await store.findUserById(userId))) throw new DomainError('USER_NOT_FOUND', `User ${userId} was not found.`);
    await store.setPasswordHash(userId, await hashPassword(password, logN), clock.now());
  }

  return {
    async createOrganization(input: { name: string; tier?: string }): Promise<OrganizationRow> {
      const name = input.name.trim();
      if (!name || name.length > 200) throw new DomainError('INVALID_REQUEST', 'Organization name must be 1-200 characters.');
      const tier = (input.tier ?? 'pilot') as Tier;
      if (!TIERS.includes(tier)) throw new DomainError('INVALID_REQUEST', `Unknown tier "${input.tier}"; one of ${TIERS.join(', ')}.`);
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

    /**
     * Adds a user. Operator-created users (the CLI) are active and verified; users created in the product
     * are `invited` with an unverified email until they accept the invitation mailed to them.
     */
    async addUser(input: { orgId: string; email: string; role: string; invited?: boolean }): Promise<UserRow> {
      if (!(await store.findOrganization(input.orgId))) throw new DomainError('NOT_FOUND', `Organization ${input.orgId} was not found.`);
      if (!ORG_ROLES.includes(input.role as OrgRole)) {
        throw new DomainError('INVALID_REQUEST', `Role must be one of ${ORG_ROLES.join(', ')}.`);
      }
      const email = input.email.trim().toLowerCase();
      if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw new DomainError('INVALID_REQUEST', `"${input.email}" is not an email address.`);
      if ((await store.usersByEmail(email)).some((u) => u.org_id === input.orgId)) {
        throw new DomainError('USER_ALREADY_MEMBER', `${email} is already a user of this organization.`, {
          nextStep: 'List the users with GET /v1/settings/users; a suspended user can be reactivated with PATCH.',
        });
      }
      const now = clock.now();
      const row: UserRow = {
        id: newId('usr'),
        org_id: input.orgId,
        email,
        role: input.role as OrgRole,
        status: input.invited ? 'invited' : 'active',
        created_at: now,
        email_verified_at: input.invited ? null : now,
      };
      await store.insertUser(row);
      return row;
    },

    setPassword,

    /**
     * The active, verified users an email and password sign in as: one per organization whose account
     * under that email has this password (an email may belong to several organizations).
     */
    async signInCandidates(email: string, password: string): Promise<UserRow[]> {
      const users = await store.usersByEmail(email.trim().toLowerCase());
      const out: UserRow[] = [];
      for (const user of users) {
        if (user.status !== 'active' || !user.email_verified_at) continue;
        const hash = await store.passwordHash(user.id);
        if (hash && (await verifyPassword(password, hash))) out.push(user);
      }
      return out;
    },

    /** Accepting an invitation: the mailed link proved the email; the person chose a password. */
    async activateInvited(userId: string, password: string): Promise<void> {
      const user = await store.findUserById(userId);
      if (!user || user.status !== 'invited') throw new DomainError('USER_NOT_FOUND', 'This invitation is no longer open.');
      await setPassword(userId, password);
      await store.markEmailVerified(userId, clock.now());
      await store.setStatus(user.org_id, userId, 'active');
    },

    async setUserStatus(orgId: string, userId: string, status: UserStatus): Promise<UserRow> {
      if (!USER_STATUSES.includes(status)) throw new DomainError('INVALID_REQUEST', `Status must be one of ${USER_STATUSES.join(', ')}.`);
      const user = await store.findUser(orgId, userId);
      if (!user)
        throw new DomainError('USER_NOT_FOUND', `User ${userId} was not found.`, {
          nextStep: 'List the users with GET /v1/settings/users.',
        });
      await store.setStatus(orgId, userId, status);
      return { ...user, status };
    },

    findUserById: (userId: string) => store.findUserById(userId),
    listUsers: (orgId: string) => store.listUsers(orgId),

    findOrganization: (orgId: string) => store.findOrganization(orgId),
    /** The organization's tier (null: no such organization); `conn`: a transaction of the caller's. */
    tierOf: async (orgId: string, conn?: Parameters<OrganizationStore['tierOf']>[1]): Promise<Tier | null> =>
      (await store.tierOf(orgId, conn)) as Tier | null,
    findUser: (orgId: string, userId: string) => store.findUser(orgId, userId),
    firstOwner: (orgId: string) => store.firstOwner(orgId),
    setTier: (orgId: string, tier: Tier) => store.updateTier(orgId, tier),
    countOrganizations: () => store.countOrganizations(),
    listOrganizations: () => store.listOrganizations(),
  };
}

export type OrganizationService = ReturnType<typeof createOrganizationService>;
