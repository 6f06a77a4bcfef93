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
import type { DuckDBDataChunk } from '@duckdb/node-api';
import os from 'node:os';
import path from 'node:path';
import { lit } from '../../graph/index.ts';
import type { NormalizedRecord } from '../normalize/record.ts';
import { assertKeyHash } from './key-hash.ts';
import { candidateSql, directSql, personsSql, streetAnchorSql } from './candidates.ts';
import { decideRow, type Decision, type ScoredCandidate } from './levels.ts';
import { scoringOfIndex, type Scoring } from './params.ts';
import { createRowShortlister, packedColumnsOfChunk, type PackedColumns } from './packed-rows.ts';
import { loadAnchors, pointCandidates, rowZips, spatialAnchor, type AnchorTables, type StreetAnchor } from './point.ts';
import { streetAnchorsByRow } from './street-anchors.ts';
import { stageRows, type StagedFile } from './stage.ts';
import { loadResidentPersons, RESIDENT_BYTES_PER_PERSON, type ResidentPersons } from './resident-persons.ts';
import { warmMatchIndex, type WarmOptions, type WarmResult } from './warm.ts';
import { MATCH_LEVELS, type MatchLevel, type MatchOptions, type MatchResult, type MatchType, type MatchWarning } from './types.ts';

/** The narrow slice of the warehouse client the matcher uses. */
export interface MatchWarehouse {
  query(sql: string): Promise<Record<string, unknown>[]>;
  /** Runs `sql`, handing the result over a chunk at a time as columns (see Warehouse.stream). */
  stream(sql: string, onChunk: (columns: unknown[][], rowCount: number) => void | Promise<void>): Promise<void>;
  /** stream() with the raw chunks (graph/vectors.ts): the file path reads its candidates so. */
  streamRaw(sql: string, onChunk: (chunk: DuckDBDataChunk) => void | Promise<void>): Promise<void>;
  /** Statements it runs at once (a connection pool); point lookups are split over up to two. Default 1. */
  connections?: number;
}

export interface MatcherDeps {
  warehouse: MatchWarehouse;
  /** Path of the match index sidecar of the release to match against (or a getter for the current one). */
  indexPath: string | (() => string | Promise<string>);
}

/** One row's answer on the file path: r is the staged row number. */
export interface StagedDecision {
  r: number;
  personKey: bigint;
  householdKey: bigint | null;
  matchLevel: MatchLevel;
  matchType: MatchType;
  matchConfidence: number;
}

export interface Matcher {
  matchBatch(records: readonly NormalizedRecord[], options: MatchOptions): Promise<MatchResult[]>;
  /**
   * The file path: every row of `staged` (createStageWriter) in one candidate statement; `emit` gets
   * each matched row's decision (unmatched rows get none), candidate rows in order of r.
   * `directPersonKeys` of the options is ignored: staged rows carry their direct key.
   */
  matchStaged(staged: StagedFile, options: MatchOptions, emit: (d: StagedDecision) => void | Promise<void>): Promise<void>;
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
const roundConfidence = (c: number) => Math.round(c * 1e4) / 1e4;
const byWeight = (a: ScoredCandidate, b: ScoredCandidate) =>
  b.weight - a.weight || (a.personKey < b.personKey ? -1 : a.personKey > b.personKey ? 1 : 0);

export function createMatcher(deps: MatcherDeps): Matcher {
  const attached = new Map<string, Promise<string>>();
  // The process's copy of m_person (resident-persons.ts), of the index warm() loaded it for; at most one.
  const residents = new Map<string, ResidentPersons>();
  const anchorCache = new Map<string, Promise<AnchorTables>>();
  const query = (sql: string) => deps.warehouse.query(sql);
  const lookupWays = Math.max(1, Math.min(2, deps.warehouse.connections ?? 1, os.availableParallelism()));
  const indexFile = async () => (typeof deps.indexPath === 'string' ? deps.indexPath : deps.indexPath());
  // The release's recorded parameters (params.ts), read once per index.
  const scorings = new Map<string, Scoring>();
  const scoringOf = (file: string): Scoring => {
    let s = scorings.get(file);
    if (!s) scorings.set(file, (s = scoringOfIndex(file)));
    return s;
  };

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
      p = (async () => {
        await deps.warehouse.query(`ATTACH IF NOT EXISTS ${lit(file)} AS ${alias} (READ_ONLY)`);
        // Its keys must be the ones this process makes (key-hash.ts), or nothing would ever match.
        const [meta] = await deps.warehouse.query(`SELECT k64_probe::VARCHAR AS k FROM ${alias}.m_meta`);
        assertKeyHash(meta?.k ? BigInt(meta.k as string) : null, `the match index ${path.basename(file)}`);
        return alias;
      })();
      p.catch(() => attached.delete(file));
      attached.set(file, p);
    }
    return p;
  }

  async function matchBatch(records: readonly NormalizedRecord[], options: MatchOptions): Promise<MatchResult[]> {
    const file = await indexFile();
    const mx = await attach(file);
    const allowed = new Set<MatchLevel>(options.matchLevels.length ? options.matchLevels : MATCH_LEVELS);
    const rowIds = records.map((r, i) => r.rowId ?? String(i + 1));
    const results: MatchResult[] = records.map((r, i) => ({
      rowId: rowIds[i]!,
      personKey: null,
      householdKey: null,
      matchLevel: null,
      matchType: null,
      matchConfidence: null,
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
          results[i]!.warnings.push({
            field: 'iag_person_id',
            code: 'person_not_found',
            message: 'the person of iag_person_id is not in the current release; matched on the other fields',
          });
          return;
        }
        Object.assign(results[i]!, {
          personKey: key,
          householdKey: found.get(key) ?? null,
          matchLevel: 'I',
          matchType: 'person_id',
          matchConfidence: 1,
        });
        done[i] = true;
      });
    }

    const todo = records.map((_, i) => i).filter((i) => !done[i]);
    if (todo.length === 0) return results;
    const rows = todo.map((i) => records[i]!);
    const settle = (i: number, d: Decision) =>
      Object.assign(results[i]!, {
        personKey: d.personKey,
        householdKey: d.householdKey,
        matchLevel: d.level,
        matchType: d.type,
        matchConfidence: roundConfidence(d.confidence),
      });
    if (todo.length > POINT_MAX_ROWS) {
      const staged = stageRows(rows);
      try {
        await matchStaged(staged, options, ({ r, ...answer }) => {
          Object.assign(results[todo[r]!]!, answer);
        });
      } finally {
        staged.cleanup();
      }
      return results;
    }
    // Sequential on purpose: the warehouse may be a single connection.
    const anchorTables = allowed.has('S') ? await anchors(mx) : null;
    const streets = new Map<number, StreetAnchor>();
    const scoring = scoringOf(file);
    // A release switched since the warm-up: its copy of m_person belongs to the old index (freed here).
    if (residents.size > 0 && !residents.has(file)) residents.clear();
    const byRow = await pointCandidates(
      query,
      mx,
      rows,
      undefined,
      lookupWays,
      anchorTables ? streets : undefined,
      scoring,
      residents.get(file) ?? null,
    );
    todo.forEach((i, r) => {
      const anchor = anchorTables ? spatialAnchor(anchorTables, rowZips(rows[r]!)[0], streets.get(r)) : null;
      const d = decideRow((byRow.get(r) ?? []).sort(byWeight), allowed, options.spatialMode, anchor, scoring.iThreshold);
      if (d) settle(i, d);
    });
    return results;
  }

  /**
   * File path: one statement of hash joins over every staged row, each index table scanned once.
   * It streams every candidate in order of r with its features packed in one integer; weights,
   * the per-row shortlist and the decision are computed here as each row's candidates complete,
   * so memory holds one row's candidates, never the file's.
   */
  async function matchStaged(staged: StagedFile, options: MatchOptions, emit: (d: StagedDecision) => void | Promise<void>): Promise<void> {
    const file = await indexFile();
    const mx = await attach(file);
    const scoring = scoringOf(file);
    const allowed = new Set<MatchLevel>(options.matchLevels.length ? options.matchLevels : MATCH_LEVELS);
    const anchorTables = allowed.has('S') ? await anchors(mx) : null;
    const done = new Uint8Array(staged.rowCount);
    if (staged.directCount > 0 && allowed.has('I')) {
      // Direct refresh: a verified tier-01 id goes straight to its person if it is in this release.
      const direct: StagedDecision[] = [];
      await deps.warehouse.stream(directSql(staged.rowSql, mx), (cols, n) => {
        for (let i = 0; i < n; i++) {
          const r = Number(cols[0]![i]);
          done[r] = 1;
          direct.push({
            r,
            personKey: big(cols[1]![i])!,
            householdKey: big(cols[2]![i]),
            matchLevel: 'I',
            matchType: 'person_id',
            matchConfidence: 1,
          });
        }
      });
      for (const d of direct.sort((a, b) => a.r - b.r)) await emit(d);
    }
    // Street anchors (spatial level): rows whose address is on a graph street. With a second connection, found
    // while the candidate statement runs (it fills the cores that statement leaves idle); decisions wait for them.
    const streets = streetAnchorsByRow(staged.rowCount);
    const streetsFound =
      anchorTables && staged.streetCount > 0
        ? deps.warehouse.streamRaw(streetAnchorSql(staged.streetKeySql, mx), streets.addChunk)
        : Promise.resolve();
    streetsFound.catch(() => {}); // awaited below; a failure must not go unhandled while the other statement runs
    if ((deps.warehouse.connections ?? 1) < 2) await streetsFound;
    let next = 0;
    // Synchronous unless `emit` answers with a promise (a progress write): a million rows must not cost a
    // million awaits. Returns the promise to wait for before the next call, if any.
    const decideUpTo = (end: number, r: number, shortlisted: ScoredCandidate[]): Promise<void> | undefined => {
      // Rows before r had no candidate: only a spatial anchor can match them.
      for (; next < end; next++) {
        const list = next === r ? shortlisted : [];
        const street = streets.get(next);
        if (done[next] || (list.length === 0 && !street)) continue;
        const d = decideRow(
          list,
          allowed,
          options.spatialMode,
          anchorTables && street ? spatialAnchor(anchorTables, staged.firstZip(next), street) : null,
          scoring.iThreshold,
        );
        const pending = d
          ? emit({
              r: next,
              personKey: d.personKey,
              householdKey: d.householdKey,
              matchLevel: d.level,
              matchType: d.type,
              matchConfidence: roundConfidence(d.confidence),
            })
          : undefined;
        if (pending) {
          next++;
          return pending.then(() => decideUpTo(end, r, shortlisted));
        }
      }
      return undefined;
    };
    if (staged.keyCount > 0) {
      let cur = -1;
      const rows = createRowShortlister(scoring);
      const onColumns = async (columns: PackedColumns) => {
        if (cur < 0) await streetsFound;
        for (let i = 0; i < columns.count; i++) {
          const r = columns.r[i]!;
          if (r !== cur) {
            const pending = cur >= 0 ? decideUpTo(cur + 1, cur, rows.take()) : undefined;
            if (pending) await pending;
            cur = r;
            rows.start(staged.firstName(r), staged.lastName(r));
          }
          rows.add(columns, i);
        }
      };
      // Only candidates that can take part in a decision (levels.ts canQualify): the rest never leave DuckDB.
      const sql = `${candidateSql({ rowSql: staged.rowSql, keySql: staged.keySql, mx, decidable: true })} ORDER BY r`;
      // Raw chunks: no JS value per candidate cell (packed-rows.ts).
      await deps.warehouse.streamRaw(sql, (chunk) => onColumns(packedColumnsOfChunk(chunk)));
      if (cur >= 0) await decideUpTo(cur + 1, cur, rows.take());
    }
    await streetsFound;
    await decideUpTo(staged.rowCount, -1, []);
  }

  let warming: Promise<WarmResult> | null = null;
  async function warm(options?: WarmOptions): Promise<WarmResult> {
    warming ??= (async () => {
      const file = await indexFile();
      const mx = await attach(file);
      // The copy of m_person first, so its scan cannot push the probed ART nodes out of the buffer pool.
      let copy: WarmResult['residentPersons'];
      if (options?.residentPersons !== false && !options?.signal?.aborted) {
        const started = performance.now();
        const count = Number((await query(`SELECT count(*) AS n FROM ${mx}.m_person`))[0]!.n);
        const fits = count * RESIDENT_BYTES_PER_PERSON <= (options?.residentMaxBytes ?? os.totalmem() / 8);
        const resident = fits
          ? await loadResidentPersons((sql, onChunk) => deps.warehouse.stream(sql, onChunk), mx, count, options?.signal)
          : null;
        if (resident) {
          residents.clear();
          residents.set(file, resident);
          copy = { persons: resident.count, bytes: resident.bytes, ms: Math.round(performance.now() - started) };
        }
      }
      const result = await warmMatchIndex(query, mx, options);
      return copy ? { ...result, residentPersons: copy } : result;
    })();
    warming.catch(() => {
      warming = null;
    });
    return warming;
  }

  return {
    matchBatch,
    matchStaged,
    warm,
    lookupWays,
    indexTable: async (table: string) => `${await attach(await indexFile())}.${table}`,
  };
}
