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
 * - Output: every candidate (r, person_key, household_key, hh_ref, fp), its features packed into one
 *   integer (unpackFeatures), no weight: the engine computes weights and the per-row shortlist in JS
 *   (packed-rows.ts, as point.ts shortlist), which is cheaper than window functions over all candidates
 *   and than reading twelve columns back. Model fitting reads every candidate; the matcher only those that
 *   can take part in a decision (`decidable`).
 */
import { dobPartSql, dobSql, EMAIL_NEAR_MAX_EDITS, firstSql, lastSql } from './compare.ts';
import { KIND, STREET_RANGE_SLACK } from './keys.ts';
import { nameWeightSql } from './model.ts';
import { canQualify } from './levels.ts';
import { ADDR, DOB, EMAIL, FIRST, ID, LAST, type Features } from './types.ts';

export interface CandidateSqlParts {
  rowSql: string;
  keySql: string;
  /** Alias the match index is attached as. */
  mx: string;
  /** Just the candidates that can take part in a decision (levels.ts canQualify; the matcher), not every one (fitting). */
  decidable?: boolean;
}

/** Features packed 3 bits each (every level is < 8): email, phone, first, last, dob, address, swapped. */
const PACK_SQL = `(f_email + 8 * f_phone + 64 * f_first + 512 * f_last + 4096 * f_dob + 32768 * f_address
  + CASE WHEN f_swapped THEN 262144 ELSE 0 END)::INTEGER`;

/** The packed value of `f` as PACK_SQL computes it (unpackFeatures is its inverse). */
export function packFeatures(f: Features): number {
  return f.email + 8 * f.phone + 64 * f.first + 512 * f.last + 4096 * f.dob + 32768 * f.address + (f.swapped ? 262144 : 0);
}

/** Every valid combination of feature levels (112,896), for predicates enumerated from the level rules. */
function* everyFeatures(): Generator<Features> {
  for (const email of Object.values(EMAIL))
    for (const phone of Object.values(ID))
      for (const first of Object.values(FIRST)) {
        for (const last of Object.values(LAST))
          for (const dob of Object.values(DOB))
            for (const address of Object.values(ADDR)) {
              for (const swapped of [false, true]) yield { email, phone, first, last, dob, address, swapped };
            }
      }
}

/** An agreeing email or phone, or a current residence: always of use to a decision (D, A, H). */
const alwaysDecidable = (f: Features) =>
  f.email === ID.agree || f.phone === ID.agree || f.address === ADDR.unit || f.address === ADDR.street;

let decidableValues: string | undefined;

/**
 * SQL: whether the packed features `fp` can take part in a decision (levels.ts canQualify). An agreeing email or
 * phone or a current residence always can; of the other packed values, those canQualify accepts are enumerated
 * from the level rules themselves (a few thousand, probed as a semi join), so the SQL never restates the rules.
 */
export function decidableSql(fp: string): string {
  decidableValues ??= [...everyFeatures()]
    .filter((f) => !alwaysDecidable(f) && canQualify(f))
    .map(packFeatures)
    .join(', ');
  return `((${fp} & 7) = ${ID.agree} OR ((${fp} >> 3) & 7) = ${ID.agree} OR ((${fp} >> 15) & 7) IN (${ADDR.unit}, ${ADDR.street})
    OR ${fp} IN (SELECT unnest([${decidableValues}])))`;
}

/** The packed value of the features other than the names (email, phone, dob, address), as NON_NAME_PACK_SQL. */
export const nonNamePack = (f: Pick<Features, 'email' | 'phone' | 'dob' | 'address'>) =>
  f.email + 8 * f.phone + 4096 * f.dob + 32768 * f.address;
const NON_NAME_PACK_SQL = '(f_email + 8 * f_phone + 4096 * f_dob + 32768 * f_address)';

let supportableValues: string | undefined;

/**
 * SQL over f_email, f_phone, f_dob, f_address: whether a candidate with these features can take part in a decision
 * for some names (canQualify of some first/last/swap). A candidate that cannot is dropped before its names are
 * compared, the costliest part of the statement: most blocked strangers share a surname and a ZIP or a full name
 * and nothing else. The values are enumerated from the rules (levels.ts), as in decidableSql.
 */
export function supportableSql(): string {
  supportableValues ??= [...new Set([...everyFeatures()].filter(canQualify).map(nonNamePack))].join(', ');
  return `${NON_NAME_PACK_SQL} IN (SELECT unnest([${supportableValues}]))`;
}

export function unpackFeatures(fp: number): Features {
  return {
    email: fp & 7,
    phone: (fp >> 3) & 7,
    first: (fp >> 6) & 7,
    last: (fp >> 9) & 7,
    dob: (fp >> 12) & 7,
    address: (fp >> 15) & 7,
    swapped: ((fp >> 18) & 1) === 1,
  };
}

/** Bits of a candidate's block hits (cand.hit): which blocks found it, all that its email, phone and address features need. */
const HIT = { email: 1, phone: 2, emailNear: 4, unit: 8, street: 16, history: 32 } as const;

export function candidateSql(p: CandidateSqlParts): string {
  const packed = `SELECT r::INTEGER AS r, person_key::BIGINT AS person_key, household_key::BIGINT AS household_key, hh_ref::BIGINT AS hh_ref, ${PACK_SQL} AS fp FROM f2`;
  const output = p.decidable ? `SELECT * FROM (${packed}) WHERE ${decidableSql('fp')}` : packed;
  return `
  WITH in_row AS (${p.rowSql}),
  in_key AS (${p.keySql}),
  hits AS (
    SELECT i.r, m.person_key, m.kind, i.unit AS iu, m.unit AS gu
    FROM in_key i JOIN ${p.mx}.m_key m ON m.k = i.k WHERE i.kind <> ${KIND.street}),
  cand AS (
    SELECT r, person_key, bit_or(CASE kind WHEN ${KIND.email} THEN ${HIT.email} WHEN ${KIND.phone} THEN ${HIT.phone} WHEN ${KIND.emailLocal} THEN ${HIT.emailNear}
      WHEN ${KIND.emailDomainName} THEN CASE WHEN levenshtein(iu, gu) <= ${EMAIL_NEAR_MAX_EDITS} THEN ${HIT.emailNear} ELSE 0 END
      WHEN ${KIND.address} THEN CASE WHEN coalesce(iu, '') = coalesce(gu, '') THEN ${HIT.unit} ELSE ${HIT.street} END
      WHEN ${KIND.addressHistory} THEN ${HIT.history} ELSE 0 END)::UTINYINT AS hit
    FROM hits GROUP BY r, person_key),
  -- The candidates' person attributes first: cand is narrow, so it is the hash table's side and m_person streams
  -- past it (joined after in_row, the wide row-and-candidate rows were the build side: about twice the CPU).
  cp AS (
    SELECT c.*, p.household_key, p.hh_ref, p.zip5 AS g_zip5, p.house AS g_house, p.dob AS g_dob, p.first_name AS g_first,
      p.last_name AS g_last, p.nickname AS g_nick, p.last_sx AS g_last_sx
    FROM cand c JOIN ${p.mx}.m_person p ON p.person_key = c.person_key),
  f0 AS (
    SELECT c.r, c.person_key, c.household_key, c.hh_ref,
      CASE WHEN c.hit & ${HIT.email} <> 0 THEN ${ID.agree} WHEN c.hit & ${HIT.emailNear} <> 0 THEN ${EMAIL.near} WHEN i.has_email THEN ${ID.disagree} ELSE ${ID.missing} END AS f_email,
      CASE WHEN c.hit & ${HIT.phone} <> 0 THEN ${ID.agree} WHEN i.has_phone THEN ${ID.disagree} ELSE ${ID.missing} END AS f_phone,
      CASE WHEN c.hit & ${HIT.unit} <> 0 THEN ${ADDR.unit} WHEN c.hit & ${HIT.street} <> 0 THEN ${ADDR.street} WHEN c.hit & ${HIT.history} <> 0 THEN ${ADDR.history}
        ELSE CASE WHEN list_contains(i.house_zips, c.g_zip5 || ':' || c.g_house) THEN ${ADDR.house}
          WHEN list_contains(i.zip5s, c.g_zip5) THEN ${ADDR.zip} WHEN i.has_addr AND c.g_zip5 IS NOT NULL THEN ${ADDR.disagree} ELSE ${ADDR.missing} END END AS f_address,
      CASE WHEN i.dob_part IS NOT NULL THEN ${dobPartSql('i.dob_part', 'c.g_dob')} ELSE ${dobSql('i.dob', 'c.g_dob')} END AS f_dob,
      i.first AS i_first, i.last AS i_last, i.first_vars AS i_vars, i.first_sx AS i_first_sx, i.last_sx AS i_last_sx,
      c.g_first, c.g_nick, c.g_last, c.g_last_sx
    FROM cp c JOIN in_row i ON i.r = c.r),
  -- Names are compared only where the other features leave a decision possible (supportableSql).
  f0n AS (
    SELECT *,
      ${firstSql('i_first', 'g_first', 'i_vars', 'g_nick')} AS fs1,
      ${lastSql('i_last', 'g_last', 'i_last_sx', 'g_last_sx')} AS ls1
    FROM f0${p.decidable ? ` WHERE ${supportableSql()}` : ''}),
  -- Names crosswise, only where they can win: with both names exact straight, no crosswise pair weighs more
  -- (exact is the highest weight of each name, and a swap pays SWAP_PENALTY), so the two comparators are skipped.
  f1 AS (
    SELECT *,
      CASE WHEN fs1 = ${FIRST.exact} AND ls1 = ${LAST.exact} THEN ${FIRST.missing} ELSE ${firstSql('i_last', 'g_first', null, null)} END AS fs2,
      CASE WHEN fs1 = ${FIRST.exact} AND ls1 = ${LAST.exact} THEN ${LAST.missing} ELSE ${lastSql('i_first', 'g_last', 'i_first_sx', 'g_last_sx')} END AS ls2
    FROM f0n),
  f1s AS (SELECT *, ${nameWeightSql('fs2', 'ls2', true)} > ${nameWeightSql('fs1', 'ls1', false)} AS f_swapped FROM f1),
  f2 AS (
    SELECT r, person_key, household_key, hh_ref, f_email, f_phone, f_address, f_dob, f_swapped,
      CASE WHEN f_swapped THEN fs2 ELSE fs1 END AS f_first, CASE WHEN f_swapped THEN ls2 ELSE ls1 END AS f_last
    FROM f1s)
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
  SELECT s.r::INTEGER AS r, s.person_key::BIGINT AS person_key, p.household_key::BIGINT AS household_key FROM s JOIN ${mx}.m_person p USING (person_key)`;
}

/** Staged rows whose direct person key (a verified iag_person_id) is a person of the index. */
export function directSql(rowSql: string, mx: string): string {
  return `WITH in_row AS (${rowSql})
  SELECT i.r, p.person_key, p.household_key FROM in_row i JOIN ${mx}.m_person p ON p.person_key = i.direct`;
}

export function personsSql(mx: string, keys: readonly bigint[]): string {
  return `SELECT person_key, household_key FROM ${mx}.m_person WHERE person_key IN (${keys.length ? keys.join(', ') : 'NULL'})`;
}
