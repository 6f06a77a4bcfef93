/**
 * POST /v1/match (spec 4.5): validate; reserve the billing ceiling while matching against the current
 * release; enrich matched rows while settling (and publishing the scratch segment) in one transaction.
 * Ids, pricing and PII rules: docs/decisions/005-match-ids-and-billing.md.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { canonicalJson, sha256Hex } from '../../lib/crypto.ts';
import type { Clock } from '../../lib/clock.ts';
import {
  createMatcher,
  readEnrichment,
  warmEnrichment,
  MATCH_LEVELS,
  type Matcher,
  type WarmOptions,
  type MatchLevel,
  type MatchResult,
  type MatchWarehouse,
  type SpatialMode,
} from '../../identity/matcher/index.ts';
import type { ReleaseInfo } from '../../graph/index.ts';
import { normalizeMatchInput } from '../../identity/normalize/index.ts';
import { decodeIssuedPersonId, deriveContinuityId, graphPersonIdEncoder } from '../../identity/person-id.ts';
import type { Viewer } from '../../core/caller.ts';
import { DomainError } from '../../core/errors.ts';
import { newId } from '../../lib/ids.ts';
import { centsToUsd, type BillingService, type Reservation } from '../billing/index.ts';
import type { CatalogField, CatalogTemplate } from '../../graph/index.ts';
import { toClientError } from '../../graph/index.ts';
import { DEFAULT_EPHEMERAL_TTL_HOURS, ephemeralExpiry, type SegmentsApi } from '../segments/index.ts';
import { enrichmentKey, type MatchResponse } from './schemas.ts';
import { disclose, disclosureBasis } from './disclosure.ts';
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

export type MatchCaller = Viewer;

/** What matchRecords hands to publish (the enrichment read still running). */
interface Matched {
  release: ReleaseInfo;
  results: MatchResult[];
  matchedKeys: bigint[];
  ids: (string | null)[];
  idWarnings: Map<number, { field: string; code: string; message: string }>;
  enrichment: Promise<Map<bigint, Record<string, unknown>>>;
}

export interface MatchingDeps {
  db: Kysely<DB>;
  clock: Clock;
  warehouse: MatchWarehouse;
  index: Pick<MatchIndexProvider, 'current'>;
  billing: BillingService;
  segments: SegmentsApi;
  catalog: { fields: readonly CatalogField[]; templates: readonly CatalogTemplate[] };
  organizations: { findOrganization(orgId: string): Promise<{ tier: string; client_code: string } | undefined> };
  /** The person-id secret shared by every process (server_secrets). */
  personIdSecret: () => Promise<string>;
  dataDir: string;
}

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
    const matcher = matcherFor(indexPath);
    const warmed = await matcher.warm(options);
    // The enrichment dictionaries (a few hundred thousand values at 10M persons), so no request loads them.
    if (!options?.signal?.aborted) await warmEnrichment(deps.warehouse, await matcher.indexTable('m_attr'));
    return { release: release.file, ...warmed };
  }

  /** `bill: false` for a caller that charges the match itself (an integration run, through its own ledger rows). */
  async function execute(caller: MatchCaller, body: MatchRequest, rowIds: string[], fields: CatalogField[], bill = true) {
    const org = await deps.organizations.findOrganization(caller.orgId);
    if (!org) throw new DomainError('TOKEN_INVALID', 'The organization of this token no longer exists.');
    const secret = await deps.personIdSecret();
    // The reservation (control plane) and the match (warehouse) run at once. The match writes nothing and
    // charges nothing, so a refused reservation (402) returns its own error, as before, and leaves no
    // trace; the match it overlapped is dropped.
    const matching = matchRecords(caller, org, secret, body, rowIds, fields);
    matching.catch(() => {}); // awaited below, unless the reservation fails first
    const reservation = bill
      ? await deps.billing.reserve({
          orgId: caller.orgId,
          tier: org.tier,
          kind: 'match.microbatch',
          ceilingQuantity: body.records.length,
          fingerprint: sha256Hex(canonicalJson(body)),
        })
      : null;
    let membersFile: string | null = null;
    try {
      return await publish(caller, body, rowIds, fields, await matching, reservation, (f) => {
        membersFile = f;
      });
    } catch (error) {
      if (reservation) await deps.billing.release(reservation);
      if (membersFile) removeMembers(membersFile);
      throw toClientError(error);
    }
  }

  /**
   * Normalizes and matches the records, computes their ids and starts the enrichment read of the matched
   * persons (not awaited: it runs in the warehouse while the charge is settled). No side effects.
   */
  async function matchRecords(
    caller: MatchCaller,
    org: { client_code: string },
    secret: string,
    body: MatchRequest,
    rowIds: string[],
    fields: CatalogField[],
  ) {
    const { release, indexPath } = await deps.index.current();
    const today = deps.clock.now();
    const normalized = body.records.map((r, i) => ({ ...normalizeMatchInput(r, { position: i + 1, today }), rowId: rowIds[i]! }));

    // Direct refresh only for a tier-01 id of this organization issued by an I match: an id issued at H, D, S
    // or A names a resident the caller did not identify, so it refreshes nothing (decision 051); the row
    // falls back to its other fields, like any id that is not usable.
    const direct = new Map<string, bigint>();
    const idWarnings = new Map<number, { field: string; code: string; message: string }>();
    normalized.forEach((n, i) => {
      if (!n.iagPersonId) return;
      const issued = decodeIssuedPersonId(n.iagPersonId, { orgId: caller.orgId, secret, orgClientCode: org.client_code });
      if (issued?.level === 'I') direct.set(rowIds[i]!, issued.personKey);
      else
        idWarnings.set(i, {
          field: 'iag_person_id',
          code: 'person_id_not_usable',
          message: issued
            ? `iag_person_id was issued by a level ${issued.level} match and refreshes nothing (only ids of I matches do); matched on the other fields`
            : 'iag_person_id is not a tier-01 id of this organization; matched on the other fields',
        });
    });

    const matcher = matcherFor(indexPath);
    const results = await matcher.matchBatch(normalized, {
      matchLevels: body.match_level?.length ? [...new Set(body.match_level)] : [...MATCH_LEVELS],
      spatialMode: body.spatial_mode ?? 'residential',
      directPersonKeys: direct,
    });
    const matchedKeys = results.filter((r) => r.personKey !== null).map((r) => r.personKey!);
    // The enrichment read runs in the warehouse while the ids are computed here and the charge is settled.
    const enrichment = readEnrichment(
      deps.warehouse,
      { table: await matcher.indexTable('m_attr'), ways: matcher.lookupWays },
      matchedKeys,
      fields,
    );
    enrichment.catch(() => {}); // awaited in publish; this only keeps an early failure from going unhandled
    // Each id carries the level of the match that issued it (person-id.ts), so a refresh can never claim more.
    const encoders = new Map<MatchLevel, (key: bigint) => string>();
    const encodeId = (key: bigint, level: MatchLevel) => {
      let e = encoders.get(level);
      if (!e) encoders.set(level, (e = graphPersonIdEncoder({ orgId: caller.orgId, orgClientCode: org.client_code, secret, level })));
      return e(key);
    };
    const ids = results.map((r, i) =>
      r.personKey !== null && r.matchLevel !== null
        ? encodeId(r.personKey, r.matchLevel)
        : deriveContinuityId({ orgId: caller.orgId, orgClientCode: org.client_code, secret, record: normalized[i]! }),
    );
    return { release, results, matchedKeys, ids, idWarnings, enrichment };
  }

  async function publish(
    caller: MatchCaller,
    body: MatchRequest,
    rowIds: string[],
    fields: CatalogField[],
    m: Matched,
    reservation: Reservation | null,
    wroteMembers: (file: string) => void,
  ) {
    const { release, results, matchedKeys } = m;
    const matchCount = matchedKeys.length;
    // The scratch segment is built from this very result: no second match, no second charge.
    const wantScratch = body.create_scratch_segment === true && matchCount > 0;
    const segmentId = wantScratch ? newId('seg') : null;
    if (segmentId) {
      const file = scratchMembersPath(deps.dataDir, segmentId);
      wroteMembers(file);
      // With each record's level: a delivery of the scratch segment gates its members by them (decision 051).
      await writeMembersParquet(
        deps.warehouse,
        file,
        results.flatMap((r) =>
          r.personKey !== null && r.matchLevel !== null ? [{ personKey: r.personKey, level: r.matchLevel, type: r.matchType }] : [],
        ),
      );
    }
    const now = deps.clock.now();
    // The charge is settled while the enrichment read runs; the transaction commits only once the read has
    // succeeded and the records are built, so a failure in either charges nothing (the caller then
    // releases the reservation).
    const { cents, scratch, records } = await deps.db.transaction().execute(async (trx) => {
      const cents = reservation ? await deps.billing.settle(trx, reservation, matchCount) : 0;
      const scratch = segmentId
        ? await insertScratch(trx, caller, segmentId, { matchedKeys, inputRecordCount: results.length, matchCount, release, now })
        : null;
      return { cents, scratch, records: responseRecords(body, rowIds, fields, m, await m.enrichment) };
    });
    const response: MatchResponse = {
      records,
      match_count: matchCount,
      record_count: records.length,
      amount_charged: centsToUsd(cents),
      data_release: { major: release.major, minor: release.minor },
      scratch_segment: scratch,
    };
    // Graph person keys per record (null when unmatched): internal, for an integration run's collection capture.
    const personKeys = results.map((r) => (r.personKey !== null && r.matchLevel !== null ? r.personKey.toString() : null));
    return { response, personKeys };
  }

  function responseRecords(
    body: MatchRequest,
    rowIds: string[],
    fields: CatalogField[],
    m: Matched,
    enrichment: Map<bigint, Record<string, unknown>>,
  ) {
    return m.results.map((r, i) => {
      const input = body.records[i]!;
      const warnings = [...unknownFieldWarnings(input), ...(m.idWarnings.has(i) ? [m.idWarnings.get(i)!] : []), ...r.warnings];
      const attrs: Record<string, unknown> = {};
      if (r.personKey !== null && r.matchLevel !== null) {
        const v = disclose(enrichment.get(r.personKey) ?? {}, fields, disclosureBasis(r.matchLevel, r.matchType));
        for (const [name, value] of Object.entries(v.attrs)) attrs[enrichmentKey(name)] = value;
        if (v.withheldIdentity.length)
          warnings.push({
            field: 'field_list',
            code: 'pii_withheld',
            message: `identity fields are returned only for an individual (I) match of the record's own identifying fields, never for a refresh by iag_person_id: ${v.withheldIdentity.join(', ')}`,
          });
        if (v.withheldByLevel.length)
          warnings.push({
            field: 'field_list',
            code: 'withheld_at_level',
            message: `not returned for a level ${r.matchLevel} match (decision 051): ${v.withheldByLevel.join(', ')}`,
          });
      }
      return {
        row_id: rowIds[i]!,
        iag_person_id: m.ids[i]!,
        match_level: r.matchLevel,
        match_type: r.matchType,
        match_confidence: r.matchConfidence,
        ...echoOf(input),
        ...attrs,
        warnings,
      };
    });
  }

  /**
   * The scratch segment (spec 4.5 create_scratch_segment): an ephemeral matched segment whose members
   * were resolved by this very response. No audience, no event: scratch is private working state.
   */
  async function insertScratch(
    trx: typeof deps.db,
    caller: MatchCaller,
    id: string,
    r: {
      matchedKeys: bigint[];
      inputRecordCount: number;
      matchCount: number;
      release: { major: number; minor: number };
      now: Date;
    },
  ) {
    await deps.segments.insert(trx, {
      id,
      orgId: caller.orgId,
      name: `Match scratch ${r.now.toISOString()}`,
      subtype: 'matched',
      status: 'active',
      visibility: 'org',
      createdBy: caller.userId,
      ephemeral: true,
      count: { record_count: new Set(r.matchedKeys).size, record_count_reason: null },
      release: r.release,
      now: r.now,
      expiresAt: ephemeralExpiry(r.now, DEFAULT_EPHEMERAL_TTL_HOURS),
      inputRecordCount: r.inputRecordCount,
      matchCount: r.matchCount,
      membersPath: scratchMembersPath(deps.dataDir, id),
      details: { file_format: 'json', shard_count: 1, mapping_confirmed: true, column_mappings: null, hitl: false },
    });
    const row = (await deps.segments.findSegment(trx, caller.orgId, id))!;
    const doc = deps.segments.presentSegment(row);
    return {
      segment_id: doc.segment_id,
      name: doc.name,
      subtype: doc.subtype,
      status: doc.status,
      record_count: doc.record_count,
      input_record_count: row.input_record_count,
      match_count: row.match_count,
      ephemeral: doc.ephemeral,
      expires_at: doc.expires_at,
    };
  }

  return {
    warm,
    /** Runs one micro-batch match. Request-level checks first: a rejected request reserves, charges and claims nothing. */
    async match(caller: MatchCaller, body: MatchRequest): Promise<MatchResponse> {
      const rowIds = checkRecords(body.records);
      const { fields } = selectFields(body, deps.catalog);
      return (await execute(caller, body, rowIds, fields)).response;
    },
    /**
     * The same match without a charge and without a scratch segment: for an integration run, which
     * bills matched records itself (once per run, through the ledger) or not at all (partner billing).
     * `person_keys` (graph person keys as text, null when unmatched, in record order) never leave the
     * service: the run captures them into the organization's match collection.
     */
    async matchUnbilled(
      caller: MatchCaller,
      body: Omit<MatchRequest, 'create_scratch_segment'>,
    ): Promise<MatchResponse & { person_keys: (string | null)[] }> {
      const rowIds = checkRecords(body.records);
      const { fields } = selectFields(body, deps.catalog);
      const { response, personKeys } = await execute(caller, { ...body, create_scratch_segment: false }, rowIds, fields, false);
      return { ...response, person_keys: personKeys };
    },
    /** Checks a field_list against the catalog (UNKNOWN_FIELD); returns the catalog names. */
    checkFieldList(fieldList: string[]): string[] {
      return selectFields({ field_list: fieldList }, deps.catalog).fields.map((f) => f.name);
    },
    /**
     * What a match of this body could cost, without running it: the same request checks, then the
     * ceiling a match reserves (every record matched at the contract's rate). Changes nothing.
     */
    async quote(caller: MatchCaller, body: MatchRequest) {
      checkRecords(body.records);
      selectFields(body, deps.catalog);
      const org = await deps.organizations.findOrganization(caller.orgId);
      if (!org) throw new DomainError('TOKEN_INVALID', 'The organization of this token no longer exists.');
      const unit = deps.billing.unitPrice('match.microbatch', org.tier);
      return {
        records: body.records.length,
        unit_price_usd: centsToUsd(unit),
        max_charge_usd: centsToUsd(unit * body.records.length),
        pricing: 'matched records x unit_price_usd; unmatched records are free',
      };
    },
  };
}

export type MatchingService = ReturnType<typeof createMatchingService>;
