/**
 * People management for owners and admins: invite a person by email (they choose a password through the
 * mailed link, which also verifies the email), suspend, reactivate or remove them. Suspension and
 * removal end the person's OAuth grants at once (spec 5.9).
 */
import type { Kysely } from 'kysely';
import { DomainError } from '../../../core/errors.ts';
import type { DB } from '../../../db/schema.ts';
import type { Clock } from '../../../lib/clock.ts';
import { sha256Hex } from '../../../lib/crypto.ts';
import { newId, randomBase62 } from '../../../lib/ids.ts';
import type { OrganizationService, OrgRole, UserRow, UserStatus } from '../../organizations/index.ts';
import type { GrantService } from '../grants/service.ts';
import type { Mailer } from './mail.ts';

export interface UserView {
  id: string;
  email: string;
  role: OrgRole;
  status: UserStatus;
  email_verified: boolean;
  created_at: Date;
}

export const userView = (u: UserRow): UserView => ({
  id: u.id,
  email: u.email,
  role: u.role,
  status: u.status as UserStatus,
  email_verified: !!u.email_verified_at,
  created_at: u.created_at,
});

export const invitationPath = (token: string) => `/v1/oauth/invitations/${token}`;

export function createPeopleService(deps: {
  db: Kysely<DB>;
  organizations: OrganizationService;
  grants: GrantService;
  mailer: Mailer;
  clock: Clock;
  issuer: string;
  invitationTtlHours: number;
}) {
  const { db, organizations, grants, mailer, clock } = deps;

  async function assertManager(orgId: string, userId: string): Promise<UserRow> {
    const user = await organizations.findUser(orgId, userId);
    if (!user || user.status !== 'active' || (user.role !== 'owner' && user.role !== 'admin')) {
      throw new DomainError('OWNER_OR_ADMIN_REQUIRED', 'Only organization owners and admins manage people and OAuth grants.', {
        nextStep: 'Ask an owner or admin of your organization to do this.',
      });
    }
    return user;
  }

  async function findOpenInvitation(token: string) {
    const row = await db.selectFrom('invitations').selectAll().where('token_hash', '=', sha256Hex(token)).executeTakeFirst();
    if (!row || row.accepted_at || clock.now().getTime() >= new Date(row.expires_at).getTime()) return null;
    const user = await organizations.findUserById(row.user_id);
    if (!user || user.status !== 'invited') return null;
    const org = await organizations.findOrganization(row.org_id);
    return { invitation: row, user, organization: org?.name ?? row.org_id };
  }

  return {
    assertManager,

    async invite(actor: { orgId: string; userId: string }, input: { email: string; role: string }) {
      const inviter = await assertManager(actor.orgId, actor.userId);
      if (input.role === 'owner' && inviter.role !== 'owner') {
        throw new DomainError('OWNER_OR_ADMIN_REQUIRED', 'Only an owner can invite another owner.', {
          nextStep: 'Invite the person as admin or member, or ask an owner.',
        });
      }
      const user = await organizations.addUser({ orgId: actor.orgId, email: input.email, role: input.role, invited: true });
      const token = randomBase62(43);
      const now = clock.now();
      const expiresAt = new Date(now.getTime() + deps.invitationTtlHours * 3600_000);
      await db
        .insertInto('invitations')
        .values({
          id: newId('inv'),
          org_id: actor.orgId,
          user_id: user.id,
          token_hash: sha256Hex(token),
          invited_by: actor.userId,
          created_at: now,
          expires_at: expiresAt,
        })
        .execute();
      const org = await organizations.findOrganization(actor.orgId);
      await mailer.send({
        to: user.email,
        subject: `You are invited to ${org?.name ?? 'an organization'} on the Audience Data Service`,
        text: [
          `${inviter.email} invited you to join ${org?.name ?? 'their organization'} as ${user.role}.`,
          '',
          `Choose your password here (the link works until ${expiresAt.toISOString()}):`,
          `${deps.issuer}${invitationPath(token)}`,
          '',
          'If you did not expect this, ignore this message.',
        ].join('\n'),
      });
      return { ...userView(user), invitation_expires_at: expiresAt };
    },

    /** The open invitation behind a link, or null when it is unknown, used or expired. */
    findOpenInvitation,

    /** Accepting: the link proves the email; the person's chosen password becomes their credential. */
    async acceptInvitation(token: string, password: string): Promise<UserRow | null> {
      const open = await findOpenInvitation(token);
      if (!open) return null;
      await organizations.activateInvited(open.user.id, password);
      await db.updateTable('invitations').set({ accepted_at: clock.now() }).where('id', '=', open.invitation.id).execute();
      return (await organizations.findUserById(open.user.id)) ?? null;
    },

    async list(orgId: string): Promise<UserView[]> {
      return (await organizations.listUsers(orgId)).filter((u) => u.status !== 'removed').map(userView);
    },

    async setStatus(
      actor: { orgId: string; userId: string },
      userId: string,
      status: 'active' | 'suspended' | 'removed',
    ): Promise<UserView> {
      await assertManager(actor.orgId, actor.userId);
      if (userId === actor.userId) {
        throw new DomainError('FORBIDDEN', 'You cannot suspend or remove yourself.', { nextStep: 'Ask another owner or admin.' });
      }
      const current = await organizations.findUser(actor.orgId, userId);
      if (!current || current.status === 'removed') {
        throw new DomainError('USER_NOT_FOUND', `User ${userId} was not found.`, {
          nextStep: 'List the users with GET /v1/settings/users.',
        });
      }
      if (status === 'active' && current.status === 'invited') {
        throw new DomainError('INVALID_STATUS_TRANSITION', 'An invited person becomes active by accepting the invitation.', {
          nextStep: 'Ask the person to open the invitation link mailed to them.',
        });
      }
      const user = await organizations.setUserStatus(actor.orgId, userId, status);
      if (status !== 'active') await grants.revokeForUser(userId);
      return userView(user);
    },
  };
}

export type PeopleService = ReturnType<typeof createPeopleService>;
