import { Type } from 'typebox';
import { DateTime, Literals, Nullable } from '../../core/schema.ts';

export const GrantSchema = Type.Object({
  id: Type.String(),
  client_id: Type.String({ description: 'Pre-registered id, dynamic registration id, or the URL of the client metadata document' }),
  client_name: Type.String({ description: 'The name the person saw on the consent page' }),
  user_id: Type.String({ description: 'The person who approved the grant' }),
  user_email: Nullable(Type.String()),
  resources: Type.Array(Type.Object({ resource: Type.String(), scopes: Type.Array(Type.String()) })),
  identity_scopes: Type.Array(Type.String(), { description: 'openid and email, when granted with the tool resource' }),
  created_at: DateTime(),
  expires_at: Nullable(DateTime()),
});
export const GrantListSchema = Type.Object({ grants: Type.Array(GrantSchema) });

export const UserSchema = Type.Object({
  id: Type.String(),
  email: Type.String(),
  role: Literals('owner', 'admin', 'member'),
  status: Literals('active', 'invited', 'suspended', 'removed'),
  email_verified: Type.Boolean(),
  created_at: DateTime(),
});
export const UserListSchema = Type.Object({ users: Type.Array(UserSchema) });
export const InvitedUserSchema = Type.Intersect([UserSchema, Type.Object({ invitation_expires_at: DateTime() })]);

export const InviteBody = Type.Object(
  {
    email: Type.String({ minLength: 3, maxLength: 254, format: 'email' }),
    role: Literals('owner', 'admin', 'member'),
  },
  { additionalProperties: false },
);
export const UserStatusBody = Type.Object({ status: Literals('active', 'suspended') }, { additionalProperties: false });
