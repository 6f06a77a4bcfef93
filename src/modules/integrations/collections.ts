/**
 * Integration match collections (spec 2, 3, 8; decision 050): each organization has one collection of
 * kind `default` (made on first use), retention 90 days, status `active` (captures) or `paused` (does not).
 * Identities are captured from integration runs' matches by the refresh job (collections-capture.ts).
 * Every number shown is graph-derived and goes through the privacy layer under one question per
 * collection and filter: the collection count and the record_count of a segment made from the same
 * filter agree.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Kysely } from 'kysely';
import type { Viewer } from '../../core/caller.ts';
import { DomainError } from '../../core/errors.ts';
import type { DB } from '../../db/schema.ts';
import { DAY, type Clock } from '../../lib/clock.ts';
import { newId, randomBase62 } from '../../lib/ids.ts';
import { namedQuestion, type Privacy } from '../privacy/index.ts';
import { persistentExpiry, type CreatedSegmentDoc, type SegmentsApi } from '../segments/index.ts';
import { collectionStore as store, type CollectionFilter, type CollectionRow } from './collections-store.ts';

export const COLLECTION_RETENTION_DAYS = 90;
export const DEFAULT_COLLECTION_NAME = 'Default collection';

export interface CollectionDeps {
  db: Kysely<DB>;
  clock: Clock;
  privacy: Pick<Privacy, 'shownCount'>;
  segments: Pick<SegmentsApi, 'requireRelease' | 'insert' | 'insertWrapperAudience' | 'findSegment' | 'presentSegment'>;
  /** Writes the person keys (as text) to a Parquet member set at `target`, distinct and ascending (the warehouse's COPY). */
  writeMembers(keys: readonly string[], target: string): Promise<void>;
  /** Absolute path of an object key under DATA_DIR/objects. */
  objectPath(key: string): string;
}

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

/** The privacy question of a collection and filter: canonical conditions, so the same selection is the same question. */
export function collectionQuestion(collectionId: string, filter: CollectionFilter) {
  const conditions: string[] = [];
  for (const key of ['providers', 'connection_ids', 'integration_run_ids', 'source_kinds'] as const) {
    const values = filter[key];
    if (values?.length) conditions.push(`${key}=${[...new Set(values)].sort().join(',')}`);
  }
  if (filter.boundary_at_from) conditions.push(`boundary_at_from=${new Date(filter.boundary_at_from).toISOString()}`);
  if (filter.boundary_at_to) conditions.push(`boundary_at_to=${new Date(filter.boundary_at_to).toISOString()}`);
  return namedQuestion(`integration_collection|${collectionId}|${conditions.join('|')}`, conditions);
}

function checkFilter(filter: CollectionFilter) {
  if (
    filter.boundary_at_from &&
    filter.boundary_at_to &&
    new Date(filter.boundary_at_from).getTime() > new Date(filter.boundary_at_to).getTime()
  ) {
    throw new DomainError(
      'INVALID_COLLECTION_FILTER',
      `boundary_at_from (${filter.boundary_at_from}) is after boundary_at_to (${filter.boundary_at_to}).`,
      {
        nextStep: 'Send a date range whose start is not after its end.',
      },
    );
  }
}

export function createCollectionService(deps: CollectionDeps) {
  const { db, clock, privacy } = deps;

  function present(row: CollectionRow) {
    const shown =
      row.identity_count === null
        ? null
        : privacy.shownCount({ question: collectionQuestion(row.id, {}), trueCount: row.identity_count }).record_count;
    return {
      collection_id: row.id,
      org_id: row.org_id,
      name: row.name,
      kind: 'default' as const,
      status: row.status as 'active' | 'paused',
      retention_days: 90 as const,
      unique_identity_count: shown,
      count_refreshed_at: iso(row.count_refreshed_at),
      last_captured_at: iso(row.last_captured_at),
      created_at: iso(row.created_at)!,
      updated_at: iso(row.updated_at)!,
    };
  }

  /** The organization's default collection, made on first use. */
  async function ensureDefault(orgId: string, conn: Kysely<DB> = db): Promise<CollectionRow> {
    const existing = await store.byKind(conn, orgId, 'default');
    if (existing) return existing;
    const now = clock.now();
    await store.insertUnlessExists(conn, {
      id: newId('icol'),
      org_id: orgId,
      name: DEFAULT_COLLECTION_NAME,
      kind: 'default',
      status: 'active',
      retention_days: COLLECTION_RETENTION_DAYS,
      identity_count: null,
      count_refreshed_at: null,
      last_captured_at: null,
      created_at: now,
      updated_at: now,
    });
    return (await store.byKind(conn, orgId, 'default'))!;
  }

  async function find(orgId: string, id: string): Promise<CollectionRow> {
    const row = await store.collection(db, orgId, id);
    if (!row)
      throw new DomainError('INTEGRATION_COLLECTION_NOT_FOUND', `No integration match collection ${id} in this organization.`, {
        nextStep: 'List them with GET /v1/integration-collections.',
      });
    return row;
  }

  async function move(orgId: string, id: string, from: 'active' | 'paused', to: 'active' | 'paused') {
    const row = await find(orgId, id);
    if (!(await store.move(db, orgId, id, from, { status: to, updated_at: clock.now() }))) {
      throw new DomainError(
        'INVALID_STATUS_TRANSITION',
        `The collection is ${row.status}; only ${from} collections can be ${to === 'paused' ? 'paused' : 'resumed'}.`,
      );
    }
    return present((await store.collection(db, orgId, id))!);
  }

  return {
    ensureDefault,
    present,

    async list(orgId: string) {
      await ensureDefault(orgId);
      return { collections: (await store.list(db, orgId)).map(present) };
    },

    async get(orgId: string, id: string) {
      return present(await find(orgId, id));
    },

    /** active -> paused: runs that complete while paused are not captured. */
    pause: (orgId: string, id: string) => move(orgId, id, 'active', 'paused'),
    /** paused -> active: capturing starts again with the next completed run. */
    resume: (orgId: string, id: string) => move(orgId, id, 'paused', 'active'),

    /** Distinct unexpired identities the filter selects, through the privacy layer (null below the floor). */
    async count(orgId: string, id: string, filter: CollectionFilter) {
      checkFilter(filter);
      const row = await find(orgId, id);
      const now = clock.now();
      const trueCount = await store.countDistinct(db, row.id, filter, now);
      const shown = privacy.shownCount({ question: collectionQuestion(row.id, filter), trueCount });
      return {
        collection_id: row.id,
        unique_identity_count: shown.record_count,
        count_reason: shown.record_count_reason === 'below_privacy_floor' ? ('below_privacy_floor' as const) : null,
        filter,
        counted_at: now.toISOString(),
      };
    },

    /**
     * A matched segment whose members are the identities the filter selects now (a Parquet member set),
     * active at once; its record_count is the collection count of the same filter (privacy layer).
     */
    async createSegment(
      viewer: Viewer,
      id: string,
      input: { name: string; filter?: CollectionFilter; create_audience?: boolean; visibility?: 'org' | 'private' },
    ): Promise<CreatedSegmentDoc> {
      const filter = input.filter ?? {};
      checkFilter(filter);
      const row = await find(viewer.orgId, id);
      const release = deps.segments.requireRelease();
      const now = clock.now();
      const keys = await store.personKeys(db, row.id, filter, now);
      if (keys.length === 0) {
        throw new DomainError(
          'INTEGRATION_COLLECTION_SELECTION_EMPTY',
          'The filter selects no captured, unexpired identity of the collection.',
          {
            nextStep: 'Widen the filter (POST /v1/integration-collections/{id}/count shows what it selects).',
          },
        );
      }
      const segmentId = newId('seg');
      const target = deps.objectPath(`segments/${viewer.orgId}/${segmentId}/collection/members-${randomBase62(8)}.parquet`);
      fs.mkdirSync(path.dirname(target), { recursive: true });
      await deps.writeMembers(keys, target);
      const count = privacy.shownCount({ question: collectionQuestion(row.id, filter), trueCount: keys.length });
      const visibility = input.visibility ?? 'org';
      const audienceId = await db.transaction().execute(async (trx) => {
        await deps.segments.insert(trx, {
          id: segmentId,
          orgId: viewer.orgId,
          name: input.name,
          subtype: 'matched',
          status: 'active',
          visibility,
          createdBy: viewer.userId,
          count,
          release,
          now,
          expiresAt: persistentExpiry(now),
          membersPath: target,
          details: {
            file_format: 'csv',
            shard_count: 1,
            column_mappings: null,
            mapping_confirmed: true,
            hitl: false,
            source: { integration_collection_id: row.id, filter },
          },
        });
        return (input.create_audience ?? true)
          ? deps.segments.insertWrapperAudience(trx, {
              orgId: viewer.orgId,
              segmentId,
              name: input.name,
              visibility,
              createdBy: viewer.userId,
              status: 'active',
              count,
              release,
              campaignId: null,
              now,
            })
          : null;
      });
      const segment = (await deps.segments.findSegment(db, viewer.orgId, segmentId))!;
      return { ...deps.segments.presentSegment(segment), ...(audienceId ? { audience_id: audienceId } : {}) };
    },
  };
}

export type CollectionService = ReturnType<typeof createCollectionService>;
export const retentionMs = (days: number) => days * DAY;
