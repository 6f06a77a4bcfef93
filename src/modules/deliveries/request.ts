/**
 * A delivery request (quote or create) resolved against the audience: visibility (404), expiry (409
 * AUDIENCE_EXPIRED), building members (409 AUDIENCE_PENDING), the destination, the field selection,
 * the member set as warehouse SQL with its exact count, and the content key that makes an identical
 * delivery free (same audience version and member segment versions, data release, fields,
 * unmatched-row policy, destination). A delivery pins the resolved snapshot (DeliverySnapshot).
 */
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Viewer } from '../../core/caller.ts';
import { DomainError } from '../../core/errors.ts';
import type { DB } from '../../db/schema.ts';
import type { ExportField, MemberBases } from '../../export-engine/index.ts';
import type { CatalogField, CatalogTemplate } from '../../graph/index.ts';
import { toClientError } from '../../graph/index.ts';
import { memberKeys, membershipSql } from '../../graph/index.ts';
import type { Composition, MembershipQuery } from '../../graph/index.ts';
import type { Clock } from '../../lib/clock.ts';
import { basesAllowing, DISCLOSURE_BASES, selectFields } from '../matching/index.ts';
import { AudienceErrors, type ReleaseRef, type SegmentRow, type SegmentsApi } from '../segments/index.ts';
import type { DeliverySubtype } from '../billing/index.ts';
import type { DestinationService } from './destinations.ts';
import { listLevels, memberBasesOf, type ListLevels } from './member-bases.ts';

export type DestinationKind = 'download' | 'sftp' | 's3';

export interface MatchedRun {
  /** The file-match run (its segment id). */
  runId: string;
  /** rows.parquet of the run (row_id, person_key), null before it completed. */
  rowsPath: string | null;
  matchCount: number;
  /** The audience that wraps the match segment, if any. */
  audienceId: string | null;
  /** The execution-key integration run of the match (private partnership workflows), if any. */
  integrationRunId?: string | null;
}

export interface RequestDeps {
  db: Kysely<DB>;
  clock: Clock;
  segments: SegmentsApi;
  catalog: () => Promise<{ fields: readonly CatalogField[]; templates: readonly CatalogTemplate[] }>;
  warehouse: {
    query<T extends Record<string, unknown> = Record<string, unknown>>(
      sql: string,
      params?: unknown[],
      options?: { timeoutMs?: number },
    ): Promise<T[]>;
  };
  /** WAREHOUSE_STATEMENT_TIMEOUT_MS: the member count is interrupted past this (503 QUERY_TIMEOUT). */
  statementTimeoutMs?: number;
  destinations: DestinationService;
  /** The file-match run behind a matched segment (file-match area). */
  matchedRun: (orgId: string, segmentId: string) => Promise<MatchedRun | null>;
}

export interface ResolvedRequest {
  audience: { id: string; name: string; version: number; release: ReleaseRef };
  destination: DestinationKind;
  destinationId: string | null;
  templateId: string | null;
  fieldList: string[] | null;
  fields: CatalogField[];
  includeUnmatched: boolean;
  members: { sql: string; params: unknown[] };
  memberCount: number;
  /** The subtype the delivery is priced as: the dearest among included segments. */
  subtype: DeliverySubtype;
  matched: { segmentId: string; run: MatchedRun } | null;
  lists: ListLevels[];
  /** Members of the customer's lists, each gated by its own match bases (member-bases.ts); undefined: none. */
  memberBases: MemberBases | undefined;
  /** The audience's membership question (what the privacy layer keys its noise on) and whether it is the customer's own list alone. */
  query: MembershipQuery;
  ownList: boolean;
  contentKey: string;
  /** The member segments at the versions this request resolved (pinned by a delivery). */
  segments: PinnedSegment[];
}

export interface PinnedSegment {
  segment_id: string;
  role: 'include' | 'exclude';
  subtype: string;
  version: number;
}

/**
 * The audience snapshot a delivery pins at creation (stored as JSON on the delivery): the member
 * segments at their versions with their membership (filter groups, record limit and subset seed, or
 * the member file of that version), the data release, the selection and the file-match run. The export
 * job rebuilds the request from it, so a refresh after acceptance never changes what is exported.
 */
export interface DeliverySnapshot {
  audience: ResolvedRequest['audience'];
  segments: PinnedSegment[];
  composition: Composition;
  subtype: DeliverySubtype;
  destination: DestinationKind;
  destinationId: string | null;
  templateId: string | null;
  fieldList: string[] | null;
  fieldNames: string[];
  includeUnmatched: boolean;
  matched: ResolvedRequest['matched'];
  /** The levels file of each included list (member-bases.ts). Absent in snapshots older than it: only `matched`'s run is known. */
  lists?: ListLevels[];
  memberCount: number;
  ownList: boolean;
}

export function snapshotOf(r: ResolvedRequest): DeliverySnapshot {
  if (r.query.kind !== 'composition') throw new Error('a delivery resolves a composition');
  return {
    audience: r.audience,
    segments: r.segments,
    composition: r.query.composition,
    subtype: r.subtype,
    destination: r.destination,
    destinationId: r.destinationId,
    templateId: r.templateId,
    fieldList: r.fieldList,
    fieldNames: r.fields.map((f) => f.name),
    includeUnmatched: r.includeUnmatched,
    matched: r.matched,
    lists: r.lists,
    memberCount: r.memberCount,
    ownList: r.ownList,
  };
}

const SUBTYPE_ORDER = ['similarity', 'propensity', 'matched', 'filter'] as const;

/**
 * An exported field; members of the customer's lists carry it only at the match bases decision 051 allows
 * (matching/disclosure.ts). A field every basis may carry is not gated, so a member whose level is not
 * known still carries it (and only such fields).
 */
export const exportFieldOf = (f: CatalogField): ExportField => {
  const bases = basesAllowing(f);
  return {
    name: f.name,
    type: f.type,
    pii: f.pii,
    storage: f.storage,
    ...(DISCLOSURE_BASES.every((b) => bases.includes(b)) ? {} : { matchBases: bases }),
    ...(f.type === 'STRING' && f.enum_values ? { enumValues: f.enum_values } : {}),
  };
};

export function createRequestResolver(deps: RequestDeps) {
  const { db, segments } = deps;

  async function loadMembers(viewer: Viewer, audienceId: string) {
    const audience = await segments.findVisibleAudience(viewer, audienceId);
    if (audience.status === 'expired' || new Date(audience.expires_at).getTime() <= deps.clock.now().getTime())
      throw AudienceErrors.expired();
    const refs = (await segments.audienceRefs(db, viewer.orgId, [audience.id])).get(audience.id) ?? [];
    const rows = new Map(
      (
        await segments.findSegments(
          db,
          viewer.orgId,
          refs.map((r) => r.segment_id),
        )
      ).map((s) => [s.id, s]),
    );
    const pick = (role: string) =>
      refs
        .filter((r) => r.role === role)
        .map((r) => rows.get(r.segment_id))
        .filter((s): s is SegmentRow => !!s);
    const include = pick('include');
    const exclude = pick('exclude');
    if (audience.status === 'pending' || [...include, ...exclude].some((s) => s.status === 'pending')) {
      throw new DomainError('AUDIENCE_PENDING', 'A member segment of the audience is still processing.', {
        nextStep: `Poll GET /v1/audiences/${audience.id} until its status is active, then deliver.`,
      });
    }
    if (include.length === 0) throw new DomainError('INVALID_REQUEST', 'The audience has no included segment left to deliver.');
    return { audience, include, exclude };
  }

  return {
    /** The distinct person keys of the request's members (the identities a delivery licenses), exact. */
    identities: (r: ResolvedRequest): Promise<bigint[]> => memberKeys(deps.warehouse, r.members),

    async resolve(
      viewer: Viewer,
      audienceId: string,
      body: {
        destination?: DestinationKind;
        destination_id?: string;
        field_list?: string[];
        template_id?: string;
        include_unmatched?: boolean;
      },
    ): Promise<ResolvedRequest> {
      const destination = body.destination ?? 'download';
      const { audience, include, exclude } = await loadMembers(viewer, audienceId);
      let destinationId: string | null = null;
      if (destination !== 'download') {
        if (!body.destination_id) {
          throw new DomainError('DESTINATION_ID_REQUIRED', `A ${destination} delivery needs destination_id.`, {
            nextStep: 'POST /v1/delivery-destinations creates one; GET lists them.',
          });
        }
        const row = await deps.destinations.find(viewer.orgId, body.destination_id);
        if (row.kind !== destination)
          throw new DomainError('DESTINATION_KIND_MISMATCH', `Destination ${row.id} is ${row.kind}, not ${destination}.`);
        destinationId = row.id;
      } else if (body.destination_id) {
        throw new DomainError('INVALID_REQUEST', 'destination_id applies to sftp and s3 deliveries only.');
      }
      const catalog = await deps.catalog();
      const selection = selectFields({ field_list: body.field_list, template_id: body.template_id }, catalog);
      const release = segments.requireRelease();
      const composition: Composition = {
        include: include.map((s) => segments.membershipOf(s)),
        exclude: exclude.map((s) => segments.membershipOf(s)),
        setLogic: audience.set_logic as 'union' | 'intersection',
      };
      const m = membershipSql({ kind: 'composition', composition }, { catalog: catalog.fields });
      const [counted] = await deps.warehouse
        .query<{ n: unknown }>(m.count, m.params, { timeoutMs: deps.statementTimeoutMs })
        .catch((cause: unknown) => {
          throw toClientError(cause, "Narrow the filters of the audience's segments (fewer conditions, fewer OR groups), then ask again.");
        });
      const matchedSegment = include.find((s) => s.subtype === 'matched') ?? null;
      const run = matchedSegment ? await deps.matchedRun(viewer.orgId, matchedSegment.id) : null;
      const lists = await listLevels(include, (id) =>
        id === matchedSegment?.id ? Promise.resolve(run) : deps.matchedRun(viewer.orgId, id),
      );
      const fieldNames = selection.fields.map((f) => f.name);
      const includeUnmatched = body.include_unmatched ?? false;
      const pin =
        (role: 'include' | 'exclude') =>
        (s: SegmentRow): PinnedSegment => ({ segment_id: s.id, role, subtype: s.subtype, version: s.current_version });
      const pinned = [...include.map(pin('include')), ...exclude.map(pin('exclude'))];
      // The snapshot's content: the audience version and its member segments' versions (a segment edit
      // or refresh does not bump the audience version), the file-match run, the release and the selection.
      const contentKey = createHash('sha256')
        .update(
          JSON.stringify({
            audience: audience.id,
            version: audience.snapshot_version,
            segments: pinned.map((p) => [p.segment_id, p.role, p.version]),
            run: run?.runId ?? null,
            release: [release.major, release.minor],
            fields: fieldNames,
            include_unmatched: matchedSegment ? includeUnmatched : false,
            destination,
            destination_id: destinationId,
            // Deliveries of lists made before each member was gated by its own bases are not reused.
            ...(lists.length ? { disclosure: 'member-bases' } : {}),
          }),
        )
        .digest('hex');
      return build(
        {
          audience: { id: audience.id, name: audience.name, version: audience.snapshot_version, release },
          segments: pinned,
          composition,
          subtype: SUBTYPE_ORDER.find((t) => include.some((s) => s.subtype === t)) ?? 'filter',
          destination,
          destinationId,
          templateId: body.field_list ? null : (body.template_id ?? 'standard_enrichment'),
          fieldList: body.field_list ? fieldNames : null,
          fieldNames,
          includeUnmatched,
          matched: matchedSegment && run ? { segmentId: matchedSegment.id, run } : null,
          lists,
          memberCount: Number(counted?.n ?? 0),
          ownList: include.length === 1 && exclude.length === 0 && include[0]!.subtype === 'matched',
        },
        selection.fields,
        catalog.fields,
        contentKey,
      );
    },

    /**
     * The request a delivery pinned, rebuilt for its export job: the same members, fields and run,
     * whatever happened to the audience since (the job checks the data release first).
     */
    async fromSnapshot(snapshot: DeliverySnapshot, contentKey: string): Promise<ResolvedRequest> {
      const catalog = await deps.catalog();
      const byName = new Map(catalog.fields.map((f) => [f.name, f]));
      const fields = snapshot.fieldNames.map((n) => {
        const f = byName.get(n);
        if (!f) throw new Error(`field ${n} of a pinned delivery is not in the catalog`);
        return f;
      });
      return build(snapshot, fields, catalog.fields, contentKey);
    },
  };
}

export type RequestResolver = ReturnType<typeof createRequestResolver>;

function build(p: DeliverySnapshot, fields: CatalogField[], catalog: readonly CatalogField[], contentKey: string): ResolvedRequest {
  const query: MembershipQuery = { kind: 'composition', composition: p.composition };
  const m = membershipSql(query, { catalog });
  // An older snapshot knows the levels of its first list only: the other lists' members get none (fail closed).
  const lists = p.lists ?? (p.matched ? [{ segmentId: p.matched.segmentId, levelsPath: p.matched.run.rowsPath }] : []);
  return {
    audience: p.audience,
    destination: p.destination,
    destinationId: p.destinationId,
    templateId: p.templateId,
    fieldList: p.fieldList,
    fields,
    includeUnmatched: p.includeUnmatched,
    members: { sql: m.select, params: m.params as unknown[] },
    memberCount: p.memberCount,
    subtype: p.subtype,
    matched: p.matched,
    memberBases: memberBasesOf(p.composition, lists, catalog),
    lists,
    query,
    ownList: p.ownList,
    contentKey,
    segments: p.segments,
  };
}
