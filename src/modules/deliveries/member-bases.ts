/**
 * Which members of a delivered audience came from the customer's own lists, and what each match earned
 * (decision 051, "Members of several lists"): the export engine's `MemberBases`.
 *
 * A list is an included matched segment: a file match (its run's rows.parquet holds every row's level)
 * or a scratch segment of POST /v1/match (its levels file beside its members, matching/scratch.ts).
 * Every member of a list is gated by the union of the bases its rows earned in all the audience's lists
 * (the fields any of its matches would have returned on its own), and a member no levels file knows
 * gets only the fields every basis may carry. In a union, a member a filter or model segment also holds
 * was selected by the service and follows the audience rules; in an intersection every member is in
 * every list, so all are gated (a filter segment only narrowed the customer's list: no reverse lookup
 * by intersecting a list with a wide filter segment).
 */
import fs from 'node:fs';
import type { MemberBases } from '../../export-engine/index.ts';
import type { CatalogField } from '../../graph/index.ts';
import { membershipSql } from '../../graph/index.ts';
import type { Composition, SegmentMembership } from '../../graph/index.ts';
import { scratchLevelsPath } from '../matching/index.ts';
import type { SegmentRow } from '../segments/index.ts';

/** A list of the audience (an included matched segment) and its levels file; null: no level is known. */
export interface ListLevels {
  segmentId: string;
  levelsPath: string | null;
}

/** The level columns of a file-match run's rows.parquet (file-match/results.ts) and of a scratch levels file. */
export const MATCH_RESULT_LEVELS = { levelColumn: 'match_level', typeColumn: 'match_type' };

const isList = (m: SegmentMembership): m is Extract<SegmentMembership, { kind: 'members' }> =>
  m.kind === 'members' && m.subtype === 'matched';

/** The levels file of each included matched segment: its file-match run's rows, else its scratch levels, if written. */
export function listLevels(
  include: readonly SegmentRow[],
  runOf: (segmentId: string) => Promise<{ rowsPath: string | null } | null>,
): Promise<ListLevels[]> {
  return Promise.all(
    include
      .filter((s) => s.subtype === 'matched')
      .map(async (s) => {
        const run = await runOf(s.id);
        if (run) return { segmentId: s.id, levelsPath: run.rowsPath };
        const scratch = s.members_path ? scratchLevelsPath(s.members_path) : null;
        return { segmentId: s.id, levelsPath: scratch && fs.existsSync(scratch) ? scratch : null };
      }),
  );
}

/** The member bases of a composition; undefined when it includes no list (nobody is gated). */
export function memberBasesOf(
  composition: Composition,
  lists: readonly ListLevels[],
  catalog: readonly CatalogField[],
): MemberBases | undefined {
  const included = composition.include.filter(isList);
  if (included.length === 0) return undefined;
  const others = composition.include.filter((m) => !isList(m));
  const selected =
    composition.setLogic === 'union' && others.length
      ? membershipSql({ kind: 'composition', composition: { include: others, exclude: [], setLogic: 'union' } }, { catalog })
      : null;
  return {
    levels: lists.flatMap((l) =>
      l.levelsPath && included.some((m) => m.segmentId === l.segmentId) ? [{ path: l.levelsPath, ...MATCH_RESULT_LEVELS }] : [],
    ),
    members: included.flatMap((m) => (m.parquetPath ? [m.parquetPath] : [])),
    selected: selected && { sql: selected.select, params: selected.params as unknown[] },
  };
}
