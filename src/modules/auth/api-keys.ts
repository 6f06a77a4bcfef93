import type { Clock } from '../../lib/clock.ts';
import { sha256Hex } from '../../lib/crypto.ts';
import { newId, randomBase62 } from '../../lib/ids.ts';
import { DomainError } from '../../core/errors.ts';
import { hasScope, normalizeKeyScopes, type ApiKeyScope } from '../../core/scopes.ts';
import type { OrganizationService } from '../organizations/index.ts';
import type { ApiKeyRow, ApiKeyStore } from './api-key-store.ts';

/** The fixed live prefix of spec section 5; 40 base62 characters after it give ~238 bits of entropy. */
export const API_KEY_PREFIX = 'ads_live_';

export interface ApiKeyView {
  id: string;
  name: string;
  scopes: string[];
  key_hint: string;
  status: 'active' | 'deactivated';
  created_by: string;
  created_at: Date;
  deactivated_at: Date | null;
  last_used_at: Date | null;
}

export interface CreatedApiKey {
  id: string;
  raw_key: string;
  name: string;
  scopes: ApiKeyScope[];
  created_at: Date;
}

function view(row: ApiKeyRow): ApiKeyView {
  return {
    id: row.id,
    name: row.name,
    scopes: row.scopes,
    key_hint: row.key_hint,
    status: row.deactivated_at ? 'deactivated' : 'active',
    created_by: row.user_id,
    created_at: row.created_at,
    deactivated_at: row.deactivated_at,
    last_used_at: row.last_used_at,
  };
}

export function hashApiKey(rawKey: string): string {
  // The key carries ~238 random bits, so one SHA-256 is enough: a slow hash would protect nothing more.
  return sha256Hex(rawKey);
}

export function createApiKeyService(deps: { store: ApiKeyStore; organizations: OrganizationService; clock: Clock }) {
  const { store, organizations, clock } = deps;

  /** Only owners and admins manage keys, whatever scopes their token carries (spec 5.3). */
  async function assertKeyManager(orgId: string, userId: string): Promise<void> {
    const user = await organizations.findUser(orgId, userId);
    if (!user || user.status !== 'active' || (user.role !== 'owner' && user.role !== 'admin')) {
      throw new DomainError('OWNER_OR_ADMIN_REQUIRED', 'Only organization owners and admins can create or revoke API keys.', {
        nextStep: 'Ask an owner or admin of your organization to do this.',
      });
    }
  }

  /** Creates a key for a user; the raw key is returned here once and only its hash is stored. */
  async function issueKey(input: { orgId: string; userId: string; name: string; scopes?: readonly string[] }): Promise<CreatedApiKey> {
    const scopes = normalizeKeyScopes(input.scopes?.length ? input.scopes : ['discovery']);
    const secret = randomBase62(40);
    const rawKey = `${API_KEY_PREFIX}${secret}`;
    const row: ApiKeyRow = {
      id: newId('key'),
      org_id: input.orgId,
      user_id: input.userId,
      name: input.name,
      scopes,
      key_hash: hashApiKey(rawKey),
      key_hint: `${API_KEY_PREFIX}${secret.slice(0, 4)}…${secret.slice(-4)}`,
      created_at: clock.now(),
      deactivated_at: null,
      last_used_at: null,
    };
    await store.insert(row);
    return { id: row.id, raw_key: rawKey, name: row.name, scopes, created_at: row.created_at };
  }

  return {
    issueKey,

    /** A credential may only hand out what it holds: a key never grants a scope its creator's token lacks. */
    async createKey(
      actor: { orgId: string; userId: string; scopes: readonly string[] },
      input: { name: string; scopes?: readonly string[] },
    ) {
      await assertKeyManager(actor.orgId, actor.userId);
      const name = input.name.trim();
      if (!name)
        throw new DomainError('INVALID_REQUEST', 'The key name must contain a visible character.', {
          nextStep: 'Name the key (1-80 characters).',
        });
      const scopes = normalizeKeyScopes(input.scopes?.length ? input.scopes : ['discovery']);
      const missing = scopes.filter((s) => !hasScope(actor.scopes, s));
      if (missing.length) {
        throw new DomainError(
          'SCOPE_NOT_HELD',
          `This credential does not hold ${missing.map((s) => `"${s}"`).join(', ')}, so it cannot grant it.`,
          {
            details: { scopes_not_held: missing },
            nextStep: 'Create the key with a credential that holds every scope requested, or request fewer scopes.',
          },
        );
      }
      return issueKey({ orgId: actor.orgId, userId: actor.userId, name, scopes });
    },

    async listKeys(orgId: string): Promise<ApiKeyView[]> {
      return (await store.list(orgId)).map(view);
    },

    async deactivateKey(actor: { orgId: string; userId: string }, keyId: string): Promise<ApiKeyView> {
      await assertKeyManager(actor.orgId, actor.userId);
      const key = await store.find(actor.orgId, keyId);
      if (!key)
        throw new DomainError('API_KEY_NOT_FOUND', `API key ${keyId} was not found.`, {
          nextStep: 'List the keys with GET /v1/settings/api-keys.',
        });
      await store.deactivate(actor.orgId, keyId, clock.now());
      return view((await store.find(actor.orgId, keyId))!);
    },

    /** The active key a raw key string names, or null. */
    async findActiveByRawKey(rawKey: string): Promise<ApiKeyRow | null> {
      if (!rawKey.startsWith(API_KEY_PREFIX)) return null;
      const row = await store.findByHash(hashApiKey(rawKey));
      return row && !row.deactivated_at ? row : null;
    },

    touch: (id: string) => store.touch(id, clock.now()),
  };
}

export type ApiKeyService = ReturnType<typeof createApiKeyService>;
