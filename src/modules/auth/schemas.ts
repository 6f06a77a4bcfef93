import { Type } from 'typebox';
import { DateTime, Literals, Nullable } from '../../core/schema.ts';

export const TokenRequest = Type.Object(
  { api_key: Type.String({ minLength: 1, maxLength: 200, description: 'An API key (prefix ads_live_)' }) },
  { additionalProperties: false },
);
export const TokenResponse = Type.Object({
  access_token: Type.String(),
  token_type: Type.Literal('Bearer'),
  expires_in: Type.Integer({ description: 'Seconds until the token expires (3600)' }),
});

export const SessionResponse = Type.Object({
  org_id: Type.String(),
  user_id: Type.String(),
  key_id: Nullable(Type.String()),
  scopes: Type.Array(Type.String()),
  via: Literals('api_key', 'oauth'),
  expires_at: DateTime(),
});

export const ScopeName = Type.Union(
  [Type.Literal('discovery'), Type.Literal('creator'), Type.Literal('account'), Type.Literal('purchase')],
  {
    description: '`purchase` is accepted as the older name of `creator`',
  },
);

export const CreateApiKeyBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 80 }),
    scopes: Type.Optional(Type.Array(ScopeName, { minItems: 1, maxItems: 4, description: 'Default ["discovery"]' })),
  },
  { additionalProperties: false },
);

export const CreatedApiKeySchema = Type.Object({
  id: Type.String(),
  raw_key: Type.String({ description: 'The full key. Shown once; only a hash is kept.' }),
  name: Type.String(),
  scopes: Type.Array(Type.String()),
  created_at: DateTime(),
});

export const ApiKeySchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  scopes: Type.Array(Type.String()),
  key_hint: Type.String({ description: 'Prefix and last characters, to recognise a key; never the key' }),
  status: Literals('active', 'deactivated'),
  created_by: Type.String({ description: 'User the key acts for' }),
  created_at: DateTime(),
  deactivated_at: Nullable(DateTime()),
  last_used_at: Nullable(DateTime()),
});

export const ApiKeyListSchema = Type.Object({ api_keys: Type.Array(ApiKeySchema) });
