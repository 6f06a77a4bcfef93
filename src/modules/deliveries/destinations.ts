/**
 * The organization's delivery destinations (account scope): create (config checked by the destination
 * kind, credentials sealed with AES-256-GCM bound to the row), list, get, test the connection, delete.
 * Credentials are never returned. Every connection goes through the outbound lookup the area is given
 * (src/destinations/net.ts resolves and dials through it).
 */
import type { Kysely } from 'kysely';
import { DomainError } from '../../core/errors.ts';
import type { DB } from '../../db/schema.ts';
import { DestinationBlockedError, type DestinationRegistry, type NetOptions } from '../../destinations/index.ts';
import type { Clock } from '../../lib/clock.ts';
import { newId } from '../../lib/ids.ts';
import { refusesConfiguredHost, type OutboundPolicy } from '../../lib/outbound/index.ts';
import { cachedDerivedKey, openValue, sealValue } from '../../lib/sealed.ts';
import type { ServerKeys } from '../../db/server-secrets.ts';
import type { CreateDestinationInput, DestinationDoc } from './schemas.ts';
import { destinationStore, type DestinationRow } from './store.ts';

const KEY_NAME = 'delivery_destination_key';
const PREFIX = 'dsk1.';

/** Destination errors (src/destinations) -> the envelope codes; anything else is rethrown as it is. */
export function destinationDomainError(error: unknown): unknown {
  const e = error as { code?: string; message?: string; issues?: string[] };
  switch (e?.code) {
    case 'INVALID_DESTINATION_CONFIG':
      return new DomainError('INVALID_DESTINATION_CONFIG', e.message ?? 'Invalid destination configuration.', {
        issues: (e.issues ?? []).map((m) => ({ path: '$', code: 'INVALID_DESTINATION_CONFIG', message: m, suggestions: [] })),
        nextStep: 'Correct the listed settings and send it again.',
      });
    case 'DESTINATION_BLOCKED':
      return new DomainError('DESTINATION_BLOCKED', e.message ?? 'Destination host not allowed.', { nextStep: 'Use a public host name.' });
    case 'DESTINATION_UNREACHABLE':
    case 'DESTINATION_AUTH_FAILED':
    case 'DESTINATION_WRITE_FAILED':
      return new DomainError(e.code, e.message ?? e.code, {
        nextStep: 'Check the destination (POST /v1/delivery-destinations/{id}/test) and try again.',
      });
    default:
      return error;
  }
}

export function createDestinationService(deps: {
  db: Kysely<DB>;
  clock: Clock;
  keys: Pick<ServerKeys, 'secret'>;
  registry: DestinationRegistry;
  net: () => NetOptions;
  policy: OutboundPolicy;
}) {
  const { db, clock, registry } = deps;
  const sealKey = cachedDerivedKey((name) => deps.keys.secret(name), KEY_NAME, 'delivery-destination-secrets/v1');
  const aad = (row: { org_id: string; id: string }) => `delivery_destinations:${row.org_id}:${row.id}`;

  async function seal(row: { org_id: string; id: string }, secrets: unknown): Promise<string> {
    return PREFIX + sealValue(await sealKey(), JSON.stringify(secrets), aad(row));
  }

  async function open(row: DestinationRow): Promise<unknown> {
    return JSON.parse(openValue(await sealKey(), row.secrets_sealed.slice(PREFIX.length), aad(row)));
  }

  const present = (row: DestinationRow): DestinationDoc => ({
    id: row.id,
    kind: row.kind as DestinationDoc['kind'],
    name: row.name,
    config: JSON.parse(row.config) as Record<string, unknown>,
    created_at: row.created_at,
  });

  const kindOf = (kind: string) => registry.get(kind)!;

  async function find(orgId: string, id: string): Promise<DestinationRow> {
    const row = await destinationStore.find(db, orgId, id);
    if (!row)
      throw new DomainError('DESTINATION_NOT_FOUND', `No destination ${id}.`, { nextStep: 'GET /v1/delivery-destinations lists them.' });
    return row;
  }

  /** A destination ready for a delivery: its kind, checked config and opened secrets. */
  async function resolve(orgId: string, id: string) {
    const row = await find(orgId, id);
    const dest = kindOf(row.kind);
    return { row, destination: dest, config: dest.checkConfig(JSON.parse(row.config)), secrets: dest.checkSecrets(await open(row)) };
  }

  return {
    find,
    resolve,
    async create(orgId: string, input: CreateDestinationInput): Promise<DestinationDoc> {
      const dest = kindOf(input.kind);
      let config: unknown;
      try {
        config = dest.checkConfig(input.config);
        dest.checkSecrets(input.secrets);
        // Refused when configured, as webhook URLs are (decision 027); names are judged again at connect time.
        const host = dest.targetHost(config);
        if (host !== null && refusesConfiguredHost(deps.policy, host)) throw new DestinationBlockedError(host);
      } catch (error) {
        throw destinationDomainError(error);
      }
      const row = {
        id: newId('dst'),
        org_id: orgId,
        kind: input.kind,
        name: input.name,
        config: JSON.stringify(config),
        created_at: clock.now(),
        deleted_at: null,
      };
      await destinationStore.insert(db, { ...row, secrets_sealed: await seal(row, input.secrets) });
      return present({ ...row, secrets_sealed: '' });
    },
    list: async (orgId: string) => ({ destinations: (await destinationStore.list(db, orgId)).map(present) }),
    get: async (orgId: string, id: string) => present(await find(orgId, id)),
    async test(orgId: string, id: string) {
      const r = await resolve(orgId, id);
      try {
        await r.destination.testConnection(r.config, r.secrets, deps.net());
      } catch (error) {
        throw destinationDomainError(error);
      }
      return { ok: true, tested_at: clock.now() };
    },
    async remove(orgId: string, id: string): Promise<DestinationDoc> {
      const row = await find(orgId, id);
      await destinationStore.softDelete(db, orgId, id, clock.now());
      return present(row);
    },
  };
}

export type DestinationService = ReturnType<typeof createDestinationService>;
