import { Type } from '@fastify/type-provider-typebox';
import { DateTime, Nullable } from '../../http/schemas.ts';

export const ScopeName = Type.Union([Type.Literal('discovery'), Type.Literal('creator'), Type.Literal('account'), Type.Literal('purchase')], {
  description: '`purchase` is accepted as the older name of `creator`',
});

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
  status: Type.Union([Type.Literal('active'), Type.Literal('deactivated')]),
  created_by: Type.String({ description: 'User the key acts for' }),
  created_at: DateTime(),
  deactivated_at: Nullable(DateTime()),
  last_used_at: Nullable(DateTime()),
});

export const ApiKeyIdParams = Type.Object({ id: Type.String() });
