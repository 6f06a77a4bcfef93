/**
 * createMatcher: the engine shared by micro-batch (POST /v1/match) and file matching.
 *
 * matchBatch stages the normalized rows (stage.ts), runs the candidate SQL (candidates.ts) against
 * the match index of the current release (match-index.ts), scores with the fitted model and
 * applies the level rules (levels.ts). Small batches (<= POINT_MAX_ROWS) take two ART-served point
 * lookups without joins and score in JS (point.ts); large ones take one statement of hash joins
 * scored in SQL. Spatial anchors (one row per ZIP) are read once per index and looked up in JS.
 * Nothing is done row by row in SQL.
 */
import { createHash } from 'node:crypto';
import os from 'node:os';
import { lit } from '../../graph/duck.ts';
import type { NormalizedRecord } from '../normalize/record.ts';
import { candidateSql, personsSql, unpackFeatures } from './candidates.ts';
import { decideRow, type ScoredCandidate } from './levels.ts';
import { matchWeight, probability } from './model.ts';
import { loadAnchors, pointCandidates, shortlist, spatialAnchor, type AnchorTables } from './point.ts';
import { stageRows } from './stage.ts';
import { warmMatchIndex, type WarmOptions, type WarmResult } from './warm.ts';
import { MATCH_LEVELS, type MatchLevel, type MatchOptions, type MatchResult, type MatchWarning } from './types.ts';

/** The narrow slice of the warehouse client the matcher uses. */
export interface MatchWarehouse {
  query(sql: string): Promise<Record<string, unknown>[]>;
  /** Statements it runs at once (a connection pool); point lookups are split over up to two. Default 1. */
  connections?: number;
}

export interface MatcherDeps {
  warehouse: MatchWarehouse;
  /** Path of the match index sidecar of the release to match against (or a getter for the current one). */
  indexPath: string | (() => string | Promise<string>);
}

export interface Matcher {
  matchBatch(records: readonly NormalizedRecord[], options: MatchOptions): Promise<MatchResult[]>;
  /** `alias.table` of a table of the current match index (attached on first use), e.g. `m_attr`. */
  indexTable(table: string): Promise<string>;
  /** Point-lookup parallelism this matcher uses (see splitLookup). */
  readonly lookupWays: number;
  /** Loads the index's lookup structures by probing a random sample (warm.ts); once per matcher. */
  warm(options?: WarmOptions): Promise<WarmResult>;
}

/** Batches up to this many rows use point lookups (point.ts); larger ones the hash-join statement. */
export const POINT_MAX_ROWS = 1000;

const big = (v: unknown) => (v === null || v === undefined ? null : BigInt(v as bigint | number));

export function createMatcher(deps: MatcherDeps): Matcher {
  const attached = new Map<string, Promise<string>>();
  const anchorCache = new Map<string, Promise<AnchorTables>>();
  const query = (sql: string) => deps.warehouse.query(sql);
  const lookupWays = Math.max(1, Math.min(2, deps.warehouse.connections ?? 1, os.availableParallelism()));
  const indexFile = async () => (typeof deps.indexPath === 'string' ? deps.indexPath : deps.indexPath());

  function anchors(mx: string): Promise<AnchorTables> {
    let p = anchorCache.get(mx);
    if (!p) {
      p = loadAnchors(query, mx);
      p.catch(() => anchorCache.delete(mx));
      anchorCache.set(mx, p);
    }
    return p;
  }

  /** ATTACHes the sidecar once per path (READ_ONLY: any number of processes may share it). */
  function attach(file: string): Promise<string> {
    let p = attached.get(file);
    if (!p) {
      const alias = `mx_${createHash('sha256').update(file).digest('hex').slice(0, 12)}`;
      p = deps.warehouse.query(`ATTACH IF NOT EXISTS ${lit(file)} AS ${alias} (READ_ONLY)`).then(() => alias);
      p.catch(() => attached.delete(file));
      attached.set(file, p);
    }
    return p;
  }

  async function matchBatch(records: readonly NormalizedRecord[], options: MatchOptions): Promise<MatchResult[]> {
    const mx = await attach(await indexFile());
    const allowed = new Set<MatchLevel>(options.matchLevels.length ? options.matchLevels : MATCH_LEVELS);
    const rowIds = records.map((r, i) => r.rowId ?? String(i + 1));
    const results: MatchResult[] = records.map((r, i) => ({
      rowId: rowIds[i]!, personKey: null, householdKey: null, matchLevel: null, matchType: null, matchConfidence: null,
      warnings: r.warnings.map((w): MatchWarning => ({ ...w })),
    }));
    const done = new Array<boolean>(records.length).fill(false);

    // Direct refresh: a tier-01 id of this organization goes straight to its person if it still exists.
    const direct = options.directPersonKeys;
    if (direct && direct.size > 0 && allowed.has('I')) {
      const wanted = [...new Set(rowIds.map((id) => direct.get(id)).filter((k): k is bigint => k !== undefined))];
      const found = new Map<bigint, bigint | null>();
      for (const row of await deps.warehouse.query(personsSql(mx, wanted))) found.set(big(row.person_key)!, big(row.household_key));
      rowIds.forEach((id, i) => {
        const key = direct.get(id);
        if (key === undefined) return;
        if (!found.has(key)) {
          results[i]!.warnings.push({ field: 'iag_person_id', code: 'person_not_found', message: 'the person of iag_person_id is not in the current release; matched on the other fields' });
          return;
        }
        Object.assign(results[i]!, { personKey: key, householdKey: found.get(key) ?? null, matchLevel: 'I', matchType: 'person_id', matchConfidence: 1 });
        done[i] = true;
      });
    }

    const todo = records.map((_, i) => i).filter((i) => !done[i]);
    if (todo.length === 0) return results;
    const rows = todo.map((i) => records[i]!);
    // Sequential on purpose: the warehouse may be a single connection.
    const anchorTables = allowed.has('S') ? await anchors(mx) : null;
    const byRow = todo.length <= POINT_MAX_ROWS ? await pointCandidates(query, mx, rows, undefined, lookupWays) : await joinCandidates(mx, rows);
    todo.forEach((i, r) => {
      const cands = (byRow.get(r) ?? []).sort((a, b) => b.weight - a.weight || (a.personKey < b.personKey ? -1 : a.personKey > b.personKey ? 1 : 0));
      const d = decideRow(cands, allowed, options.spatialMode, anchorTables ? spatialAnchor(anchorTables, rows[r]!) : null);
      if (!d) return;
      Object.assign(results[i]!, {
        personKey: d.personKey, householdKey: d.householdKey, matchLevel: d.level, matchType: d.type,
        matchConfidence: Math.round(d.confidence * 1e4) / 1e4,
      });
    });
    return results;
  }

  /**
   * File path: one statement of hash joins over the staged rows; it returns every candidate with its
   * features packed in one integer, weights and the per-row shortlist are computed here (point.ts).
   */
  async function joinCandidates(mx: string, rows: readonly NormalizedRecord[]): Promise<Map<number, ScoredCandidate[]>> {
    const all = new Map<number, ScoredCandidate[]>();
    const staged = stageRows(rows);
    try {
      if (staged.keyCount === 0) return all;
      for (const row of await query(candidateSql({ rowSql: staged.rowSql, keySql: staged.keySql, mx, output: 'packed' }))) {
        const features = unpackFeatures(Number(row.fp));
        const weight = matchWeight(features);
        const c: ScoredCandidate = {
          personKey: big(row.person_key)!, householdKey: big(row.household_key), hhRef: big(row.hh_ref),
          features, weight, probability: probability(weight),
        };
        const r = Number(row.r);
        const list = all.get(r);
        if (list) list.push(c);
        else all.set(r, [c]);
      }
    } finally {
      staged.cleanup();
    }
    const byRow = new Map<number, ScoredCandidate[]>();
    for (const [r, cands] of all) byRow.set(r, shortlist(cands));
    return byRow;
  }

  let warming: Promise<WarmResult> | null = null;
  async function warm(options?: WarmOptions): Promise<WarmResult> {
    warming ??= (async () => warmMatchIndex(query, await attach(await indexFile()), options))();
    warming.catch(() => { warming = null; });
    return warming;
  }

  return {
    matchBatch,
    warm,
    lookupWays,
    indexTable: async (table: string) => `${await attach(await indexFile())}.${table}`,
  };
}
