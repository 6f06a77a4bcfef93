import type { Clock } from '../../../lib/clock.ts';
import { sha256Hex } from '../../../lib/crypto.ts';
import type { SecretStore } from '../secrets.ts';
import type { RecordRow, RecordStore } from './record-store.ts';

/**
 * oidc-provider's storage adapter over oauth_records (ADR 028).
 *
 * - Models a client presents by value (tokens, codes) are keyed by the SHA-256 of the value and stored
 *   without it, so the table holds nothing a client could present. Sessions, device codes and
 *   interactions keep their ids: the library finds them by a second key and must get the id back.
 * - Client secrets are not stored with the client: they go to the secret store and are merged back on read.
 * - Time: expiry is recorded on the service's clock, and on every read `exp` is restated in the library's
 *   frame (its clock is Date.now) as "now plus what remains on the service's clock". So the injectable
 *   clock decides when codes, tokens, device codes and grants expire, through the library's own checks.
 */
const HASHED = new Set([
  'AccessToken',
  'AuthorizationCode',
  'RefreshToken',
  'RegistrationAccessToken',
  'InitialAccessToken',
  'ClientCredentials',
  'PushedAuthorizationRequest',
  'BackchannelAuthenticationRequest',
]);

export const recordKey = (model: string, id: string) => (HASHED.has(model) ? sha256Hex(id) : id);
export const clientSecretName = (clientId: string) => `client-secret:${clientId}`;

type Payload = Record<string, unknown>;

export interface AdapterDeps {
  store: RecordStore;
  secrets: SecretStore;
  clock: Clock;
}

/** `exp` as the library must see it: its own now plus the time left on the service's clock. */
export function libraryExp(expiresAt: Date, clock: Clock): number {
  const remainingMs = expiresAt.getTime() - clock.now().getTime();
  return Math.floor(Date.now() / 1000) + Math.floor(remainingMs / 1000);
}

export function revive(row: RecordRow, id: string, clock: Clock): Payload {
  const payload: Payload = { ...row.payload };
  if (HASHED.has(row.model)) payload.jti = id;
  if (row.expires_at) payload.exp = libraryExp(new Date(row.expires_at), clock);
  if (row.consumed_at) payload.consumed = Math.floor(new Date(row.consumed_at).getTime() / 1000);
  return payload;
}

export function createAdapterFactory(deps: AdapterDeps) {
  const { store, secrets, clock } = deps;

  return (model: string) => ({
    async upsert(id: string, payload: Payload, expiresIn?: number): Promise<void> {
      const now = clock.now();
      const stored: Payload = { ...payload };
      if (HASHED.has(model)) delete stored.jti;
      if (model === 'Client' && typeof stored.client_secret === 'string') {
        await secrets.write(clientSecretName(id), stored.client_secret);
        delete stored.client_secret;
      }
      await store.upsert({
        model,
        key: recordKey(model, id),
        payload: stored,
        grantId: model === 'Grant' ? id : ((payload.grantId as string | undefined) ?? null),
        userCode: (payload.userCode as string | undefined) ?? null,
        uid: (payload.uid as string | undefined) ?? null,
        accountId: (payload.accountId as string | undefined) ?? null,
        clientId: (payload.clientId as string | undefined) ?? (model === 'Client' ? id : null),
        now,
        expiresAt: typeof expiresIn === 'number' ? new Date(now.getTime() + expiresIn * 1000) : null,
      });
    },

    async find(id: string): Promise<Payload | undefined> {
      const row = await store.find(model, recordKey(model, id));
      if (!row) return undefined;
      const payload = revive(row, id, clock);
      if (model === 'Client') {
        const secret = await secrets.read(clientSecretName(id));
        if (secret !== null) payload.client_secret = secret;
      }
      return payload;
    },

    async findByUserCode(userCode: string): Promise<Payload | undefined> {
      const row = await store.findBy(model, 'user_code', userCode);
      return row ? revive(row, row.key, clock) : undefined;
    },

    async findByUid(uid: string): Promise<Payload | undefined> {
      const row = await store.findBy(model, 'uid', uid);
      return row ? revive(row, row.key, clock) : undefined;
    },

    async consume(id: string): Promise<void> {
      await store.consume(model, recordKey(model, id), clock.now());
    },

    async destroy(id: string): Promise<void> {
      await store.destroy(model, recordKey(model, id));
    },

    async revokeByGrantId(grantId: string): Promise<void> {
      await store.revokeByGrantId(model, grantId);
    },
  });
}
