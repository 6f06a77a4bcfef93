/**
 * Organizations and their users (with their sign-in credentials: a verified email and a password hash):
 * the tenant every other area scopes by. No API operations of its own (the CLI creates organizations and
 * users; people management is the oauth area's); other areas read and change users through this service.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import { createOrganizationService } from './service.ts';
import { createOrganizationStore } from './store.ts';

export function createOrganizationsModule(deps: { db: Kysely<DB>; clock: Clock; passwordScryptLogN?: number }) {
  return {
    organizations: createOrganizationService({
      store: createOrganizationStore(deps.db),
      clock: deps.clock,
      passwordScryptLogN: deps.passwordScryptLogN,
    }),
  };
}

export { ORG_ROLES, USER_STATUSES, type OrganizationService, type UserStatus } from './service.ts';
export type { OrganizationRow, OrgRole, UserRow } from './store.ts';
