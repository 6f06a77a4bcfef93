/**
 * POST /v1/match (spec 4.5): validate, reserve the billing ceiling, match against the current
 * release, enrich matched rows, settle (and publish the scratch segment) in one transaction.
 * Ids, pricing and PII rules: docs/decisions/005-match-ids-and-billing.md.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { canonicalJson, sha256Hex } from '../../lib/crypto.ts';
import type { Clock } from '../../lib/clock.ts';
import { createMatcher, MATCH_LEVELS, type Matcher, type WarmOptions, type MatchLevel, type MatchWarehouse, type SpatialMode } from '../../identity/matcher/index.ts';
import { normalizeMatchInput } from '../../identity/normalize/index.ts';
import { decodeGraphPersonId, deriveContinuityId, graphPersonIdEncoder } from '../../identity/person-id.ts';
import { AppError } from '../../http/errors.ts';
import type { IdempotencyService } from '../../http/idempotency/service.ts';
import type { BillingService, Reservation } from '../billing/service.ts';
import { centsToUsd } from '../billing/rates.ts';
import type { CatalogField, CatalogTemplate } from '../catalog/types.ts';
import { toClientError } from '../discovery/warehouse-errors.ts';
import { DEFAULT_EPHEMERAL_TTL_HOURS } from '../segments/common.ts';
import { createScratchMatchedSegment, newSegmentId } from '../segments/scratch.ts';
import { readEnrichment, visibleAttributes } from './enrichment.ts';
import { selectFields } from './fields.ts';
import type { MatchIndexProvider } from './match-index.ts';
import { checkRecords, echoOf, unknownFieldWarnings } from './rows.ts';
import { removeMembers, scratchMembersPath, writeMembersParquet } from './scratch.ts';

export interface MatchRequest {
  records: Record<string, unknown>[];
  field_list?: string[];
  template_id?: string;
  match_level?: MatchLevel[];
  spatial_mode?: SpatialMode;
  create_scratch_segment?: boolean;
}

export interface MatchCaller {
  orgId: string;
  userId: string;
}

export interface MatchingDeps {
  db: Kysely<DB>;
  clock: Clock;
  warehouse: MatchWarehouse;
  index: MatchIndexProvider;
  billing: BillingService;
  idempotency: IdempotencyService;
  catalog: { fields: readonly CatalogField[]; templates: readonly CatalogTemplate[] };
  organizations: { findOrganization(orgId: string): Promise<{ tier: string; client_code: string } | undefined> };
  /** The person-id secret shared by every process (server_secrets). */
  personIdSecret: () => Promise<string>;
  dataDir: string;
}

export const MATCH_ENDPOINT = 'POST /v1/match';

export function createMatchingService(deps: MatchingDeps) {
  const matchers = new Map<string, Matcher>();
  const matcherFor = (indexPath: string) => {
    let m = matchers.get(indexPath);
    if (!m) matchers.set(indexPath, (m = createMatcher({ warehouse: deps.warehouse, indexPath })));
    return m;
  };

  /**
   * Warms the current release's match index (identity/matcher/warm.ts). `ads serve` calls it in the
   * background after start; requests before it finishes are served, just slower.
   */
  async function warm(options?: WarmOptions) {
    const { release, indexPath } = await deps.index.current(); // builds the index first if needed
    if (options?.signal?.aborted) return { release: release.file, keys: 0, persons: 0, ms: 0 };
    return { release: release.file, ...(await matcherFor(indexPath).warm(options)) };
  }

  async function execute(caller: MatchCaller, body: MatchRequest, rowIds: string[], fields: CatalogField[]) {
    const org = await deps.organizations.findOrganization(caller.orgId);
    if (!org) throw new AppError('TOKEN_INVALID', 401, 'The organization of this token no longer exists.');
    const secret = await deps.personIdSecret();
    const reservation = await deps.billing.reserve({
      orgId: caller.orgId, tier: org.tier, kind: 'match.microbatch', ceilingQuantity: body.records.length,
      fingerprint: sha256Hex(canonicalJson(body)),
    });
    let membersFile: string | null = null;
    try {
      const result = await matchAndPublish(caller, org, secret, body, rowIds, fields, reservation, (f) => { membersFile = f; });
      return result;
    } catch (error) {
      await deps.billing.release(reservation);
      if (membersFile) removeMembers(membersFile);
      throw toClientError(error);
    }
  }

  async function matchAndPublish(
    caller: MatchCaller, org: { client_code: string }, secret: string, body: MatchRequest, rowIds: string[], fields: CatalogField[],
    reservation: Reservation, wroteMembers: (file: string) => void,
  ) {
    const { release, indexPath } = await deps.index.current();
    const today = deps.clock.now();
    const normalized = body.records.map((r, i) => ({ ...normalizeMatchInput(r, { position: i + 1, today }), rowId: rowIds[i]! }));

    // Direct refresh only for a valid tier-01 id of this organization; anything else falls back.
    const direct = new Map<string, bigint>();
    const idWarnings = new Map<number, { field: string; code: string; message: string }>();
    normalized.forEach((n, i) => {
      if (!n.iagPersonId) return;
      const key = decodeGraphPersonId(n.iagPersonId, { orgId: caller.orgId, secret, orgClientCode: org.client_code });
      if (key !== null) direct.set(rowIds[i]!, key);
      else idWarnings.set(i, { field: 'iag_person_id', code: 'person_id_not_usable', message: 'iag_person_id is not a tier-01 id of this organization; matched on the other fields' });
    });

    const matcher = matcherFor(indexPath);
    const results = await matcher.matchBatch(normalized, {
      matchLevels: body.match_level?.length ? [...new Set(body.match_level)] : [...MATCH_LEVELS],
      spatialMode: body.spatial_mode ?? 'residential',
      directPersonKeys: direct,
    });
    const matchedKeys = results.filter((r) => r.personKey !== null).map((r) => r.personKey!);
    // The enrichment read runs in the warehouse while the ids are computed here.
    const enrichmentRead = readEnrichment(deps.warehouse, { table: await matcher.indexTable('m_attr'), ways: matcher.lookupWays }, matchedKeys, fields);
    enrichmentRead.catch(() => {}); // awaited below; this only keeps an early failure from going unhandled
    const encodeId = graphPersonIdEncoder({ orgId: caller.orgId, orgClientCode: org.client_code, secret });
    const ids = results.map((r, i) => (r.personKey !== null && r.matchLevel !== null
      ? encodeId(r.personKey)
      : deriveContinuityId({ orgId: caller.orgId, orgClientCode: org.client_code, secret, record: normalized[i]! })));
    const enrichment = await enrichmentRead;

    const records = results.map((r, i) => {
      const input = body.records[i]!;
      const warnings = [...unknownFieldWarnings(input), ...(idWarnings.has(i) ? [idWarnings.get(i)!] : []), ...r.warnings];
      let attrs: Record<string, unknown> | null = null;
      if (r.personKey !== null && r.matchLevel !== null) {
        const v = visibleAttributes(enrichment.get(r.personKey) ?? {}, fields, r.matchLevel);
        attrs = v.attrs;
        if (v.withheld.length) warnings.push({ field: 'field_list', code: 'pii_withheld', message: `identity fields are returned for individual (I) matches only: ${v.withheld.join(', ')}` });
      }
      return {
        row_id: rowIds[i]!, iag_person_id: ids[i]!, match_level: r.matchLevel, match_type: r.matchType, match_confidence: r.matchConfidence,
        ...echoOf(input), enrichment: attrs, warnings,
      };
    });
    const matchCount = matchedKeys.length;

    // The scratch segment is built from this very result: no second match, no second charge.
    const wantScratch = body.create_scratch_segment === true && matchCount > 0;
    const segmentId = wantScratch ? newSegmentId() : null;
    if (segmentId) {
      const file = scratchMembersPath(deps.dataDir, segmentId);
      wroteMembers(file);
      await writeMembersParquet(deps.warehouse, file, matchedKeys);
    }
    const now = deps.clock.now();
    const { cents, scratch } = await deps.db.transaction().execute(async (trx) => {
      const cents = await deps.billing.settle(trx, reservation, matchCount);
      const scratch = segmentId
        ? await createScratchMatchedSegment(trx, {
          id: segmentId, orgId: caller.orgId, userId: caller.userId, name: `Match scratch ${now.toISOString()}`,
          membersPath: scratchMembersPath(deps.dataDir, segmentId), memberCount: new Set(matchedKeys).size,
          inputRecordCount: records.length, matchCount, release, ttlHours: DEFAULT_EPHEMERAL_TTL_HOURS, now,
        })
        : null;
      return { cents, scratch };
    });
    return {
      records, match_count: matchCount, record_count: records.length, amount_charged: centsToUsd(cents),
      data_release: { major: release.major, minor: release.minor }, scratch_segment: scratch,
    };
  }

  return {
    warm,
    /** Runs one micro-batch match; with an Idempotency-Key a repeat within 24 h replays the first response. */
    async match(caller: MatchCaller, body: MatchRequest, idempotencyKey?: string) {
      // Request-level checks first: a rejected request reserves, charges and claims nothing.
      const rowIds = checkRecords(body.records);
      const { fields } = selectFields(body, deps.catalog);
      const run = async () => ({ statusCode: 200, body: await execute(caller, body, rowIds, fields) });
      if (idempotencyKey === undefined) return { ...(await run()), replayed: false };
      return deps.idempotency.run({ orgId: caller.orgId, endpoint: MATCH_ENDPOINT, key: idempotencyKey, body, execute: run });
    },
  };
}

export type MatchingService = ReturnType<typeof createMatchingService>;
