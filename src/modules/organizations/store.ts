import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';

export type OrgRole = 'owner' | 'admin' | 'member';

export interface OrganizationRow {
  id: string;
  name: string;
  tier: string;
  client_code: string;
  created_at: Date;
}

export interface UserRow {
  id: string;
  org_id: string;
  email: string;
  role: OrgRole;
  status: string;
  created_at: Date;
}

export function createOrganizationStore(db: Kysely<DB>) {
  return {
    async insertOrganization(row: OrganizationRow): Promise<void> {
      await db.insertInto('organizations').values(row).execute();
    },
    async findOrganization(orgId: string): Promise<OrganizationRow | undefined> {
      return db.selectFrom('organizations').selectAll().where('id', '=', orgId).executeTakeFirst();
    },
    async clientCodeTaken(code: string): Promise<boolean> {
      return !!(await db.selectFrom('organizations').select('id').where('client_code', '=', code).executeTakeFirst());
    },
    async countOrganizations(): Promise<number> {
      const row = await db.selectFrom('organizations').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
      return Number(row.n);
    },
    async insertUser(row: UserRow): Promise<void> {
      await db.insertInto('users').values(row).execute();
    },
    async findUser(orgId: string, userId: string): Promise<UserRow | undefined> {
      return db.selectFrom('users').selectAll().where('org_id', '=', orgId).where('id', '=', userId).executeTakeFirst() as Promise<UserRow | undefined>;
    },
    async firstOwner(orgId: string): Promise<UserRow | undefined> {
      return db
        .selectFrom('users')
        .selectAll()
        .where('org_id', '=', orgId)
        .where('role', '=', 'owner')
        .where('status', '=', 'active')
        .orderBy('created_at')
        .orderBy('id')
        .executeTakeFirst() as Promise<UserRow | undefined>;
    },
    async updateTier(orgId: string, tier: string): Promise<void> {
      await db.updateTable('organizations').set({ tier }).where('id', '=', orgId).execute();
    },
  };
}

export type OrganizationStore = ReturnType<typeof createOrganizationStore>;
