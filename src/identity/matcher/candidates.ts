/**
 * Candidate generation and scoring as one SQL statement over the staged rows (stage.ts) and the
 * match index (match-index.ts). The same text serves micro-batches and million-row files:
 *
 * - Blocking: in_key JOIN m_key ON k is one equi hash join. Every block (email incl. gmail-folded,
 *   phone, address current/history, surname+ZIP5 both ways round, dob+first / dob+last) is its own
 *   key space inside that one column, so the join is a UNION ALL of blocks, never `ON a OR b`.
 * - Micro-batches do not use this statement (point.ts: ART point lookups, scoring in JS); files get
 *   plain hash joins over columnar scans.
 * - Features: email/phone/address agreement comes from which blocks hit (a candidate whose email
 *   agrees is always found by the email block, so "no email hit" is exact disagreement); names and
 *   dob are compared with the SQL twins in compare.ts; the weight sum comes from model.ts.
 * - Output (`columns`): per row, the 3 best candidates by weight plus the best current-address
 *   candidate and the best email/phone candidate, which the level rules (levels.ts) need for
 *   fallbacks. The engine asks for `packed`: every candidate, the features packed into one integer
 *   (unpackFeatures), no weight; it computes weights and that shortlist in JS (point.ts), which is
 *   cheaper than three window functions over all candidates and than reading twelve columns back.
 */
import { dobPartSql, dobSql, EMAIL_NEAR_MAX_EDITS, firstSql, lastSql } from './compare.ts';
import { KIND, STREET_RANGE_SLACK } from './keys.ts';
import { matchWeightSql, nameWeightSql } from './model.ts';
import { ADDR, EMAIL, FIRST, ID, LAST, type Features } from './types.ts';

export interface CandidateSqlParts {
  rowSql: string;
  keySql: string;
  /** Alias the match index is attached as. */
  mx: string;
  /** Every candidate pair instead of the per-row shortlist (model fitting). */
  allCandidates?: boolean;
  /** `packed`: every candidate as (r INTEGER, person_key, household_key, hh_ref BIGINT, fp INTEGER); see unpackFeatures. */
  output?: 'columns' | 'packed';
}

/** Features packed 3 bits each (every level is < 8): email, phone, first, last, dob, address, swapped. */
const PACK_SQL = `(f_email + 8 * f_phone + 64 * f_first + 512 * f_last + 4096 * f_dob + 32768 * f_address
  + CASE WHEN f_swapped THEN 262144 ELSE 0 END)::INTEGER`;

export function unpackFeatures(fp: number): Features {
  return {
    email: fp & 7, phone: (fp >> 3) & 7, first: (fp >> 6) & 7, last: (fp >> 9) & 7,
    dob: (fp >> 12) & 7, address: (fp >> 15) & 7, swapped: ((fp >> 18) & 1) === 1,
  };
}

export function candidateSql(p: CandidateSqlParts): string {
  const output = p.output === 'packed'
    ? `SELECT r::INTEGER AS r, person_key::BIGINT AS person_key, household_key::BIGINT AS household_key, hh_ref::BIGINT AS hh_ref, ${PACK_SQL} AS fp FROM f2`
    : `SELECT r, person_key, household_key, hh_ref, f_email::INTEGER AS f_email, f_phone::INTEGER AS f_phone,
    f_first::INTEGER AS f_first, f_last::INTEGER AS f_last, f_swapped, f_dob::INTEGER AS f_dob, f_address::INTEGER AS f_address, w
  FROM f3
  ${p.allCandidates ? '' : `QUALIFY row_number() OVER (PARTITION BY r ORDER BY w DESC, person_key) <= 3
    OR row_number() OVER (PARTITION BY r ORDER BY f_address IN (${ADDR.unit}, ${ADDR.street}) DESC, w DESC, person_key) = 1
    OR row_number() OVER (PARTITION BY r ORDER BY (f_email = ${ID.agree} OR f_phone = ${ID.agree}) DESC, w DESC, person_key) = 1`}`;
  return `
  WITH in_row AS (${p.rowSql}),
  in_key AS (${p.keySql}),
  hits AS (
    SELECT i.r, m.person_key, m.kind, i.unit AS iu, m.unit AS gu
    FROM in_key i JOIN ${p.mx}.m_key m ON m.k = i.k WHERE i.kind <> ${KIND.street}),
  cand AS (
    SELECT r, person_key,
      bool_or(kind = ${KIND.email}) AS email_hit, bool_or(kind = ${KIND.phone}) AS phone_hit,
      bool_or(kind = ${KIND.emailLocal} OR (kind = ${KIND.emailDomainName} AND levenshtein(iu, gu) <= ${EMAIL_NEAR_MAX_EDITS})) AS email_near,
      max(CASE WHEN kind = ${KIND.address} AND coalesce(iu, '') = coalesce(gu, '') THEN 3 WHEN kind = ${KIND.address} THEN 2
               WHEN kind = ${KIND.addressHistory} THEN 1 ELSE 0 END) AS addr_hit
    FROM hits GROUP BY r, person_key),
  -- The candidates' person attributes first: cand is narrow, so it is the hash table's side and m_person streams
  -- past it (joined after in_row, the wide row-and-candidate rows were the build side: about twice the CPU).
  cp AS (
    SELECT c.*, p.household_key, p.hh_ref, p.zip5 AS g_zip5, p.house AS g_house, p.dob AS g_dob, p.first_name AS g_first,
      p.last_name AS g_last, p.nickname AS g_nick, p.last_sx AS g_last_sx
    FROM cand c JOIN ${p.mx}.m_person p ON p.person_key = c.person_key),
  f0 AS (
    SELECT c.r, c.person_key, c.household_key, c.hh_ref,
      CASE WHEN c.email_hit THEN ${ID.agree} WHEN c.email_near THEN ${EMAIL.near} WHEN i.has_email THEN ${ID.disagree} ELSE ${ID.missing} END AS f_email,
      CASE WHEN c.phone_hit THEN ${ID.agree} WHEN i.has_phone THEN ${ID.disagree} ELSE ${ID.missing} END AS f_phone,
      CASE c.addr_hit WHEN 3 THEN ${ADDR.unit} WHEN 2 THEN ${ADDR.street} WHEN 1 THEN ${ADDR.history}
        ELSE CASE WHEN list_contains(i.house_zips, c.g_zip5 || ':' || c.g_house) THEN ${ADDR.house}
          WHEN list_contains(i.zip5s, c.g_zip5) THEN ${ADDR.zip} WHEN i.has_addr THEN ${ADDR.disagree} ELSE ${ADDR.missing} END END AS f_address,
      CASE WHEN i.dob_part IS NOT NULL THEN ${dobPartSql('i.dob_part', 'c.g_dob')} ELSE ${dobSql('i.dob', 'c.g_dob')} END AS f_dob,
      ${firstSql('i.first', 'c.g_first', 'i.first_vars', 'c.g_nick')} AS fs1,
      ${lastSql('i.last', 'c.g_last', 'i.last_sx', 'c.g_last_sx')} AS ls1,
      i.first AS i_first, i.last AS i_last, i.first_sx AS i_first_sx, c.g_first, c.g_last, c.g_last_sx
    FROM cp c JOIN in_row i ON i.r = c.r),
  -- Names crosswise, only where they can win: with both names exact straight, no crosswise pair weighs more
  -- (exact is the highest weight of each name, and a swap pays SWAP_PENALTY), so the two comparators are skipped.
  f1 AS (
    SELECT *,
      CASE WHEN fs1 = ${FIRST.exact} AND ls1 = ${LAST.exact} THEN ${FIRST.missing} ELSE ${firstSql('i_last', 'g_first', null, null)} END AS fs2,
      CASE WHEN fs1 = ${FIRST.exact} AND ls1 = ${LAST.exact} THEN ${LAST.missing} ELSE ${lastSql('i_first', 'g_last', 'i_first_sx', 'g_last_sx')} END AS ls2
    FROM f0),
  f1s AS (SELECT *, ${nameWeightSql('fs2', 'ls2', true)} > ${nameWeightSql('fs1', 'ls1', false)} AS f_swapped FROM f1),
  f2 AS (
    SELECT r, person_key, household_key, hh_ref, f_email, f_phone, f_address, f_dob, f_swapped,
      CASE WHEN f_swapped THEN fs2 ELSE fs1 END AS f_first, CASE WHEN f_swapped THEN ls2 ELSE ls1 END AS f_last
    FROM f1s),
  f3 AS (SELECT *, ${matchWeightSql()} AS w FROM f2)
  ${output}`;
}

/**
 * Street anchors (spatial level) of staged rows: per row, the lowest anchor person among the row's
 * streets (street core | zip5) whose numbered range holds the row's house number (keys.ts onStreet).
 */
export function streetAnchorSql(keySql: string, mx: string): string {
  return `WITH in_key AS (${keySql}),
  s AS (
    SELECT i.r, min(m.person_key) AS person_key
    FROM (SELECT * FROM in_key WHERE kind = ${KIND.street}) i JOIN ${mx}.m_street m ON m.k = i.k
    WHERE try_cast(i.unit AS INTEGER) BETWEEN try_cast(split_part(m.unit, '-', 1) AS INTEGER) - ${STREET_RANGE_SLACK}
                                          AND try_cast(split_part(m.unit, '-', 2) AS INTEGER) + ${STREET_RANGE_SLACK}
    GROUP BY i.r)
  SELECT s.r, s.person_key, p.household_key FROM s JOIN ${mx}.m_person p USING (person_key)`;
}

/** Staged rows whose direct person key (a verified iag_person_id) is a person of the index. */
export function directSql(rowSql: string, mx: string): string {
  return `WITH in_row AS (${rowSql})
  SELECT i.r, p.person_key, p.household_key FROM in_row i JOIN ${mx}.m_person p ON p.person_key = i.direct`;
}

export function personsSql(mx: string, keys: readonly bigint[]): string {
  return `SELECT person_key, household_key FROM ${mx}.m_person WHERE person_key IN (${keys.length ? keys.join(', ') : 'NULL'})`;
}
