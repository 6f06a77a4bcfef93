/**
 * Connections (spec 1, 4.8): one live connection per provider per organization, made through the
 * provider's OAuth by an owner or admin; tokens sealed at rest (token-box.ts) and refreshed when they
 * expire; disconnect with app_data_policy `retain` (provider data left, runs stop) or `remove` (the
 * provider cleanup must succeed first, else the connection stays connected). A disconnected row stays
 * for history (its runs and charges stay with the organization); the provider account may then connect
 * to another organization under a new connection id.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { DomainError } from '../../core/errors.ts';
import type { Clock } from '../../lib/clock.ts';
import { newId, randomBase62 } from '../../lib/ids.ts';
import { ProviderError, type ProviderAdapter } from './providers/index.ts';
import { integrationStore as store, type ConnectionRow } from './store.ts';
import { tokenAad, type TokenBox } from './token-box.ts';

/** How long a consent page may stay open before its state is refused. */
export const AUTHORIZATION_TTL_SECONDS = 600;
/** A token is refreshed this long before it expires. */
const REFRESH_MARGIN_MS = 60_000;

export interface ConnectionDeps {
  db: Kysely<DB>;
  clock: Clock;
  adapters: Map<string, ProviderAdapter>;
  box: TokenBox;
  findUser(orgId: string, userId: string): Promise<{ role: string; status: string } | undefined>;
  log?: { warn(obj: object, msg: string): void };
}

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

export function presentConnection(row: ConnectionRow) {
  return {
    connection_id: row.id,
    provider: row.provider,
    provider_account_id: row.provider_account_id,
    display_name: row.display_name,
    status: row.status as 'connected' | 'disconnected',
    created_at: iso(row.created_at)!,
  };
}

/** How a created provider list is remembered among the connection's app_properties (removed by app_data_policy remove). */
export const LIST_PREFIX = 'list:';

export function createConnectionService(deps: ConnectionDeps) {
  const { db, clock, box } = deps;

  async function assertManager(orgId: string, userId: string) {
    const user = await deps.findUser(orgId, userId);
    if (!user || user.status !== 'active' || (user.role !== 'owner' && user.role !== 'admin')) {
      throw new DomainError('OWNER_OR_ADMIN_REQUIRED', 'Only organization owners and admins connect and disconnect providers.', {
        nextStep: 'Ask an owner or admin of your organization to do this.',
      });
    }
  }

  function adapterOf(provider: string): ProviderAdapter {
    const adapter = deps.adapters.get(provider);
    if (!adapter)
      throw new DomainError(
        'PROVIDER_NOT_AVAILABLE',
        `"${provider}" is not a provider this deployment connects to (available: ${[...deps.adapters.keys()].join(', ') || 'none'}).`,
      );
    return adapter;
  }

  async function live(orgId: string, provider: string): Promise<ConnectionRow> {
    adapterOf(provider);
    const row = await store.liveConnection(db, orgId, provider);
    if (!row)
      throw new DomainError('CONNECTION_NOT_FOUND', `The organization has no live ${provider} connection.`, {
        nextStep: `Connect it with POST /v1/connections/${provider}/authorize.`,
      });
    return row;
  }

  async function storeTokens(id: string, tokens: { accessToken: string; refreshToken: string; expiresInSeconds: number }) {
    await store.updateConnection(db, id, {
      access_token: await box.seal(tokens.accessToken, tokenAad(id, 'access')),
      refresh_token: await box.seal(tokens.refreshToken, tokenAad(id, 'refresh')),
      token_expires_at: new Date(clock.now().getTime() + tokens.expiresInSeconds * 1000),
      updated_at: clock.now(),
    });
  }

  async function refresh(row: ConnectionRow): Promise<string> {
    const tokens = await adapterOf(row.provider).refresh(await box.open(row.refresh_token!, tokenAad(row.id, 'refresh')));
    await storeTokens(row.id, tokens);
    return tokens.accessToken;
  }

  /**
   * Runs `fn` with a valid access token of the connection: refreshed first when it is (nearly) expired,
   * and once more if the provider answers 401 anyway (revoked early, clock skew).
   */
  async function withToken<T>(connectionId: string, orgId: string, fn: (token: string) => Promise<T>): Promise<T> {
    const row = await store.connection(db, orgId, connectionId);
    if (!row || row.status !== 'connected' || !row.access_token)
      throw new DomainError('CONNECTION_NOT_FOUND', 'The connection was disconnected.');
    const expired = !row.token_expires_at || new Date(row.token_expires_at).getTime() - REFRESH_MARGIN_MS <= clock.now().getTime();
    const token = expired ? await refresh(row) : await box.open(row.access_token, tokenAad(row.id, 'access'));
    try {
      return await fn(token);
    } catch (error) {
      if (!(error instanceof ProviderError) || error.kind !== 'unauthorized') throw error;
      return fn(await refresh((await store.connection(db, orgId, connectionId))!));
    }
  }

  return {
    adapterOf,
    live,
    withToken,

    async authorize(caller: { orgId: string; userId: string }, provider: string) {
      await assertManager(caller.orgId, caller.userId);
      const adapter = adapterOf(provider);
      const state = randomBase62(40);
      const expiresAt = new Date(clock.now().getTime() + AUTHORIZATION_TTL_SECONDS * 1000);
      await store.insertAuthorization(
        db,
        { state, org_id: caller.orgId, user_id: caller.userId, provider, expires_at: expiresAt },
        clock.now(),
      );
      return { provider, authorization_url: adapter.authorizationUrl(state), state, expires_at: expiresAt.toISOString() };
    },

    /** Finishes the provider's OAuth: exchanges the code, checks the account is free, stores the connection. */
    async complete(caller: { orgId: string; userId: string }, provider: string, input: { code: string; state: string }) {
      await assertManager(caller.orgId, caller.userId);
      const adapter = adapterOf(provider);
      const pending = await store.takeAuthorization(db, input.state);
      if (
        !pending ||
        pending.org_id !== caller.orgId ||
        pending.provider !== provider ||
        new Date(pending.expires_at).getTime() <= clock.now().getTime()
      ) {
        throw new DomainError(
          'INTEGRATION_AUTHORIZATION_INVALID',
          'The state is unknown, used, expired, or was issued for another organization or provider.',
          { nextStep: `Start again with POST /v1/connections/${provider}/authorize.` },
        );
      }
      if (await store.liveConnection(db, caller.orgId, provider)) {
        throw new DomainError('CONNECTION_EXISTS', `The organization is already connected to ${provider}.`, {
          nextStep: `Disconnect it first with DELETE /v1/connections/${provider}.`,
        });
      }
      let granted;
      try {
        granted = await adapter.exchangeCode(input.code);
      } catch (error) {
        if (error instanceof ProviderError && error.kind === 'unauthorized')
          throw new DomainError('INTEGRATION_AUTHORIZATION_INVALID', `${provider} refused the authorization code: ${error.message}`);
        throw new DomainError('PROVIDER_UNAVAILABLE', `${provider} did not complete the authorization: ${(error as Error).message}`);
      }
      if (await store.accountConnection(db, provider, granted.accountId)) {
        await adapter.revoke(granted.refreshToken).catch(() => undefined);
        throw new DomainError('CONNECTION_ACCOUNT_IN_USE', `This ${provider} account is connected to another organization.`, {
          nextStep: 'Disconnect it in that organization first.',
        });
      }
      const id = newId('con');
      const now = clock.now();
      try {
        await store.insertConnection(db, {
          id,
          org_id: caller.orgId,
          provider,
          provider_account_id: granted.accountId,
          display_name: granted.displayName,
          status: 'connected',
          access_token: null,
          refresh_token: null,
          token_expires_at: null,
          app_properties: '[]',
          app_data_policy: null,
          created_by: caller.userId,
          created_at: now,
          updated_at: now,
          disconnected_at: null,
        });
      } catch (error) {
        // A concurrent connection won the partial unique index (one per organization and provider, one per account).
        if ((error as { code?: string }).code !== '23505') throw error;
        await adapter.revoke(granted.refreshToken).catch(() => undefined);
        if (await store.liveConnection(db, caller.orgId, provider))
          throw new DomainError('CONNECTION_EXISTS', `The organization is already connected to ${provider}.`);
        throw new DomainError('CONNECTION_ACCOUNT_IN_USE', `This ${provider} account is connected to another organization.`);
      }
      await storeTokens(id, granted);
      return presentConnection((await store.connection(db, caller.orgId, id))!);
    },

    async list(orgId: string) {
      return { connections: (await store.liveConnections(db, orgId)).map(presentConnection) };
    },

    /** Records provider properties this service created (removed again by app_data_policy remove). */
    async noteProperties(row: ConnectionRow, names: string[]) {
      const known = new Set(JSON.parse(row.app_properties) as string[]);
      const all = [...new Set([...known, ...names])];
      if (all.length !== known.size)
        await store.updateConnection(db, row.id, { app_properties: JSON.stringify(all), updated_at: clock.now() });
    },

    async disconnect(caller: { orgId: string; userId: string }, provider: string, policy: 'retain' | 'remove') {
      await assertManager(caller.orgId, caller.userId);
      const row = await live(caller.orgId, provider);
      const adapter = adapterOf(provider);
      if (policy === 'remove') {
        try {
          // app_properties holds the properties this service created and, as `list:<id>`, the lists activations created.
          const created = JSON.parse(row.app_properties) as string[];
          const lists = created.filter((p) => p.startsWith(LIST_PREFIX)).map((p) => p.slice(LIST_PREFIX.length));
          for (const list of lists) await withToken(row.id, row.org_id, (token) => adapter.lists!.deleteList(token, list));
          await withToken(row.id, row.org_id, (token) =>
            adapter.cleanup(
              token,
              created.filter((p) => !p.startsWith(LIST_PREFIX)),
            ),
          );
        } catch (error) {
          throw new DomainError(
            'PROVIDER_CLEANUP_FAILED',
            `The ${provider} cleanup failed, so the connection stays connected: ${(error as Error).message}`,
            {
              nextStep: 'Retry later, or disconnect with app_data_policy retain to leave the provider data in place.',
            },
          );
        }
      }
      const current = (await store.connection(db, row.org_id, row.id))!;
      if (current.refresh_token) {
        const refreshToken = await box.open(current.refresh_token, tokenAad(row.id, 'refresh'));
        // Best effort: the tokens are deleted here either way.
        await adapter
          .revoke(refreshToken)
          .catch((e: Error) => deps.log?.warn({ provider, err: e.message }, 'provider token revocation failed'));
      }
      const now = clock.now();
      await store.updateConnection(db, row.id, {
        status: 'disconnected',
        access_token: null,
        refresh_token: null,
        token_expires_at: null,
        app_data_policy: policy,
        disconnected_at: now,
        updated_at: now,
      });
      return { disconnected: true as const };
    },
  };
}

export type ConnectionService = ReturnType<typeof createConnectionService>;
