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
  email_verified_at: Date | null;
}

export function createOrganizationStore(db: Kysely<DB>) {
  return {
    async insertOrganization(row: OrganizationRow): Promise<void> {
      await db.insertInto('organizations').values(row).execute();
    },
    async findOrganization(orgId: string): Promise<OrganizationRow | undefined> {
      return db.selectFrom('organizations').selectAll().where('id', '=', orgId).executeTakeFirst();
    },
    /** The contract tier, read on `conn` when given (inside another area's transaction: PGlite has one connection). */
    async tierOf(orgId: string, conn: Kysely<DB> = db): Promise<string | null> {
      return (await conn.selectFrom('organizations').select('tier').where('id', '=', orgId).executeTakeFirst())?.tier ?? null;
    },
    async clientCodeTaken(code: string): Promise<boolean> {
      return !!(await db.selectFrom('organizations').select('id').where('client_code', '=', code).executeTakeFirst());
    },
    async countOrganizations(): Promise<number> {
      const row = await db
        .selectFrom('organizations')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
    async insertUser(row: UserRow): Promise<void> {
      await db.insertInto('users').values(row).execute();
    },
    async findUser(orgId: string, userId: string): Promise<UserRow | undefined> {
      return db.selectFrom('users').selectAll().where('org_id', '=', orgId).where('id', '=', userId).executeTakeFirst() as Promise<
        UserRow | undefined
      >;
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
    /** Every organization with its user count and first owner's email, oldest first (operators' listing). */
    async listOrganizations(): Promise<(OrganizationRow & { users: number; owner_email: string | null })[]> {
      const rows = await db
        .selectFrom('organizations as o')
        .leftJoin('users as u', 'u.org_id', 'o.id')
        .select((eb) => [
          'o.id',
          'o.name',
          'o.tier',
          'o.client_code',
          'o.created_at',
          eb.fn.count<number>('u.id').as('users'),
          eb.fn
            .min<string | null>(eb.case().when('u.role', '=', 'owner').then(eb.ref('u.email')).else(eb.val(null)).end())
            .as('owner_email'),
        ])
        .groupBy(['o.id', 'o.name', 'o.tier', 'o.client_code', 'o.created_at'])
        .orderBy('o.created_at')
        .execute();
      return rows.map((r) => ({ ...r, users: Number(r.users) })) as never;
    },
    /** A user by id alone (user ids are unique across organizations): OAuth grants name the person by it. */
    async findUserById(userId: string): Promise<UserRow | undefined> {
      return db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirst() as Promise<UserRow | undefined>;
    },
    async usersByEmail(email: string): Promise<UserRow[]> {
      return db.selectFrom('users').selectAll().where('email', '=', email).orderBy('created_at').orderBy('id').execute() as Promise<
        UserRow[]
      >;
    },
    async listUsers(orgId: string): Promise<UserRow[]> {
      return db.selectFrom('users').selectAll().where('org_id', '=', orgId).orderBy('created_at').orderBy('id').execute() as Promise<
        UserRow[]
      >;
    },
    async setStatus(orgId: string, userId: string, status: string): Promise<void> {
      await db.updateTable('users').set({ status }).where('org_id', '=', orgId).where('id', '=', userId).execute();
    },
    async markEmailVerified(userId: string, at: Date): Promise<void> {
      await db
        .updateTable('users')
        .set({ email_verified_at: at })
        .where('id', '=', userId)
        .where('email_verified_at', 'is', null)
        .execute();
    },
    async passwordHash(userId: string): Promise<string | null> {
      const row = await db.selectFrom('user_credentials').select('password_hash').where('user_id', '=', userId).executeTakeFirst();
      return row?.password_hash ?? null;
    },
    async setPasswordHash(userId: string, hash: string, at: Date): Promise<void> {
      await db
        .insertInto('user_credentials')
        .values({ user_id: userId, password_hash: hash, updated_at: at })
        .onConflict((oc) => oc.column('user_id').doUpdateSet({ password_hash: hash, updated_at: at }))
        .execute();
    },
    async updateTier(orgId: string, tier: string): Promise<void> {
      await db.updateTable('organizations').set({ tier }).where('id', '=', orgId).execute();
    },
  };
}

export type OrganizationStore = ReturnType<typeof createOrganizationStore>;
