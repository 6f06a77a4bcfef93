/**
 * The file path's street anchors (the spatial level), by row: the anchor person and household of each staged row
 * whose address lies on a graph street (streetAnchorSql). Held in typed arrays indexed by r and read from the raw
 * result vectors: a third of a million rows of the mixed list made as many BigInts, objects and Map entries
 * (0.4 s on the main thread); a StreetAnchor is made only for a row being decided.
 */
import type { DuckDBDataChunk } from '@duckdb/node-api';
import { int32Copy, int64Copy, rawColumn, validIn } from '../../graph/index.ts';
import type { StreetAnchor } from './point.ts';

const NONE = 0;
const PERSON = 1;
const WITH_HOUSEHOLD = 2;

export interface StreetAnchors {
  /** Adds a chunk of streetAnchorSql's result (r INTEGER, person_key BIGINT, household_key BIGINT). */
  addChunk(chunk: DuckDBDataChunk): void;
  get(r: number): StreetAnchor | undefined;
}

export function streetAnchorsByRow(rowCount: number): StreetAnchors {
  const person = new BigInt64Array(rowCount);
  const household = new BigInt64Array(rowCount);
  const state = new Uint8Array(rowCount);
  return {
    addChunk(chunk) {
      const households = rawColumn(chunk, 2, 8);
      const r32 = int32Copy(rawColumn(chunk, 0, 4));
      const p64 = int64Copy(rawColumn(chunk, 1, 8));
      const h64 = int64Copy(households);
      for (let i = 0; i < r32.length; i++) {
        const r = r32[i]!;
        person[r] = p64[i]!;
        const hasHousehold = validIn(households.validity, i);
        if (hasHousehold) household[r] = h64[i]!;
        state[r] = hasHousehold ? WITH_HOUSEHOLD : PERSON;
      }
    },
    get(r) {
      const s = state[r];
      if (s === undefined || s === NONE) return undefined;
      return { person: person[r]!, household: s === WITH_HOUSEHOLD ? household[r]! : null };
    },
  };
}
