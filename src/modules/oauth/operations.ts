/**
 * Operations of the oauth area for owners and admins: the organization's OAuth grants (list, revoke) and
 * its people (list, invite, suspend or reactivate, remove). The OAuth protocol endpoints themselves are
 * not operations: their bodies are form-encoded and their errors are RFC 6749 errors.
 */
import { callerOf, defineOperation, reply, type Operation } from '../../core/operation.ts';
import { EXAMPLE } from '../../core/examples.ts';
import { IdParams, NoContent } from '../../core/schema.ts';
import type { GrantService } from './grants/service.ts';
import type { PeopleService } from './people/service.ts';
import { GrantListSchema, InviteBody, InvitedUserSchema, UserListSchema, UserSchema, UserStatusBody } from './schemas.ts';

const tags = ['Account'];

export function oauthOperations(deps: { grants: GrantService; people: PeopleService }): Operation[] {
  const { grants, people } = deps;
  const actor = (ctx: Parameters<typeof callerOf>[0]) => {
    const c = callerOf(ctx);
    return { orgId: c.orgId, userId: c.userId };
  };
  return [
    defineOperation({
      id: 'listOAuthGrants',
      method: 'GET',
      path: '/v1/settings/oauth-grants',
      tags,
      access: 'account-read',
      effect: 'read',
      agent: false,
      summary: "List the organization's OAuth grants (owners and admins)",
      description:
        'Every connection a person of the organization approved for a partner app or agent: the client, the person, the resource and scopes. Expired grants are not listed.',
      input: {},
      status: 200,
      responses: { 200: GrantListSchema },
      errors: ['OWNER_OR_ADMIN_REQUIRED'],
      examples: [{ name: 'list', summary: "The organization's grants", request: {}, response: { status: 200 } }],
      handler: async (ctx) => {
        const a = actor(ctx);
        await people.assertManager(a.orgId, a.userId);
        return { grants: await grants.list(a.orgId) };
      },
    }),

    defineOperation({
      id: 'revokeOAuthGrant',
      method: 'DELETE',
      path: '/v1/settings/oauth-grants/{id}',
      tags,
      access: 'account',
      effect: 'write',
      agent: false,
      summary: 'Revoke an OAuth grant (owners and admins)',
      description:
        'Ends the connection at once: its refresh tokens and access tokens stop working; the client must connect again (spec 5.12).',
      input: { params: IdParams },
      status: 204,
      responses: { 204: NoContent },
      errors: ['OWNER_OR_ADMIN_REQUIRED', 'OAUTH_GRANT_NOT_FOUND'],
      examples: [
        { name: 'revoke', summary: 'Revoke a grant', request: { params: { id: EXAMPLE.oauthGrantId } }, response: { status: 204 } },
      ],
      handler: async (ctx, { params }) => {
        const a = actor(ctx);
        await people.assertManager(a.orgId, a.userId);
        await grants.revoke(a.orgId, params.id);
        return reply(204, null);
      },
    }),

    defineOperation({
      id: 'listUsers',
      method: 'GET',
      path: '/v1/settings/users',
      tags,
      access: 'account-read',
      effect: 'read',
      agent: false,
      summary: "List the organization's people",
      description: 'Active, invited and suspended users with their role and whether their email is verified.',
      input: {},
      status: 200,
      responses: { 200: UserListSchema },
      errors: [],
      examples: [{ name: 'list', summary: "The organization's people", request: {}, response: { status: 200 } }],
      handler: async (ctx) => ({ users: await people.list(callerOf(ctx).orgId) }),
    }),

    defineOperation({
      id: 'inviteUser',
      method: 'POST',
      path: '/v1/settings/users',
      tags,
      access: 'account',
      effect: 'write',
      agent: false,
      summary: 'Invite a person (owners and admins)',
      description:
        'Creates the user as `invited` and mails them a link (valid INVITATION_TTL_HOURS, default 72) where they choose a password; ' +
        'accepting verifies the email and makes the user active. Only an owner may invite an owner.',
      input: { body: InviteBody },
      status: 201,
      responses: { 201: InvitedUserSchema },
      errors: ['OWNER_OR_ADMIN_REQUIRED', 'USER_ALREADY_MEMBER'],
      examples: [
        {
          name: 'invite',
          summary: 'Invite an analyst as a member',
          request: { body: { email: 'analyst@example.com', role: 'member' } },
          response: {
            status: 201,
            body: {
              id: 'usr_...',
              email: 'analyst@example.com',
              role: 'member',
              status: 'invited',
              email_verified: false,
              created_at: '2026-11-23T12:00:00.000Z',
              invitation_expires_at: '2026-11-26T12:00:00.000Z',
            },
          },
        },
      ],
      handler: async (ctx, { body }) => reply(201, await people.invite(actor(ctx), body)),
    }),

    defineOperation({
      id: 'updateUserStatus',
      method: 'PATCH',
      path: '/v1/settings/users/{id}',
      tags,
      access: 'account',
      effect: 'write',
      agent: false,
      summary: 'Suspend or reactivate a person (owners and admins)',
      description:
        "Suspending ends the person's OAuth grants at once and stops their API keys from being exchanged; reactivating does not restore grants.",
      input: { params: IdParams, body: UserStatusBody },
      status: 200,
      responses: { 200: UserSchema },
      errors: ['OWNER_OR_ADMIN_REQUIRED', 'USER_NOT_FOUND', 'FORBIDDEN', 'INVALID_STATUS_TRANSITION'],
      examples: [
        {
          name: 'suspend',
          summary: 'Suspend a person',
          request: { params: { id: EXAMPLE.memberUserId }, body: { status: 'suspended' } },
          response: { status: 200 },
        },
      ],
      handler: async (ctx, { params, body }) => people.setStatus(actor(ctx), params.id, body.status),
    }),

    defineOperation({
      id: 'removeUser',
      method: 'DELETE',
      path: '/v1/settings/users/{id}',
      tags,
      access: 'account',
      effect: 'write',
      agent: false,
      summary: 'Remove a person from the organization (owners and admins)',
      description: 'The person can no longer sign in; their OAuth grants end at once.',
      input: { params: IdParams },
      status: 200,
      responses: { 200: UserSchema },
      errors: ['OWNER_OR_ADMIN_REQUIRED', 'USER_NOT_FOUND', 'FORBIDDEN'],
      examples: [
        { name: 'remove', summary: 'Remove a person', request: { params: { id: EXAMPLE.memberUserId } }, response: { status: 200 } },
      ],
      handler: async (ctx, { params }) => people.setStatus(actor(ctx), params.id, 'removed'),
    }),
  ];
}
