/**
 * The synthetic graph as DuckDB SQL. All randomness is `hash(key, field, seed)` mapped to [0,1), so a
 * (seed, persons, release date) triple always yields the same graph, whatever the thread count.
 * Output is TEMP staging tables (gen_p1 with one row per person, gen_emails, gen_phones, gen_addresses with
 * address history) that copyStagingIntoRelease writes, ordered, into the release tables.
 */
import { lit, type ReleaseWriter } from './duck.ts';
import { POOL, createPools, maskComboSql } from './pools.ts';
import { FIRST_NAME_BUCKETS, STATE_ZIP_BUCKETS, SURNAME_BUCKETS, ZIP_BUCKETS, firstNameKeySql, loadReference } from './reference.ts';
import { INCOME_BAND_BOUNDS, INCOME_BANDS } from './vocab.ts';

export interface GenerateParams {
  seed: number;
  persons: number;
  firstPersonKey: number;
  firstHouseholdKey: number;
  /** YYYY-MM-DD; ages and dates are relative to it. */
  releaseDate: string;
  onStage?: (step: string) => void;
}

/** Temp macros: uniform draws and integer slot picks (see pools.ts for why strings come from pools). */
async function createMacros(w: ReleaseWriter, seed: number): Promise<void> {
  const s = Math.trunc(seed);
  await w.run(`
    CREATE OR REPLACE TEMP MACRO rnd(k, f) AS (hash(k, f, ${s}::BIGINT) >> 11)::DOUBLE / 9007199254740992.0;
    CREATE OR REPLACE TEMP MACRO rnd3(k, f, j) AS (hash(k, f, j, ${s}::BIGINT) >> 11)::DOUBLE / 9007199254740992.0;
    CREATE OR REPLACE TEMP MACRO nrm(k, f) AS (rnd(k, f || '1') + rnd(k, f || '2') + rnd(k, f || '3') - 1.5) * 2.0;
    CREATE OR REPLACE TEMP MACRO slot(k, f, n) AS (hash(k, f, ${s}::BIGINT) % n)::BIGINT;
    CREATE OR REPLACE TEMP MACRO slot3(k, f, j, n) AS (hash(k, f, j, ${s}::BIGINT) % n)::BIGINT;
    CREATE OR REPLACE TEMP MACRO house_no(k, j) AS CAST(1 + floor(exp(rnd3(k, 'hn', j) * 9.2)) AS INT)::VARCHAR;
    CREATE OR REPLACE TEMP MACRO us_phone(codes, k, j) AS
      '+1' || codes[1 + floor(rnd3(k, 'ac', j) * len(codes))::INT]
      || (200 + floor(rnd3(k, 'ex', j) * 800)::INT + CASE WHEN floor(rnd3(k, 'ex', j) * 800)::INT % 100 IN (11, 55) THEN 1 ELSE 0 END)::VARCHAR
      || lpad(floor(rnd3(k, 'ln', j) * 10000)::INT::VARCHAR, 4, '0');
  `);
}

export function bandExpr(value: string, bounds: readonly number[], names: readonly string[]): string {
  const whens = names
    .slice(0, -1)
    .map((n, i) => `WHEN ${value} < ${bounds[i + 1]} THEN ${lit(n)}`)
    .join(' ');
  return `CASE ${whens} ELSE ${lit(names[names.length - 1]!)} END`;
}

export async function generateStaging(w: ReleaseWriter, p: GenerateParams): Promise<void> {
  const step = p.onStage ?? (() => {});
  const rd = `DATE ${lit(p.releaseDate)}`;
  const seed = Math.trunc(p.seed);
  step('reference');
  await createMacros(w, seed);
  await createPools(w, seed, await loadReference(w));
  const nh = Math.ceil(p.persons / 2.3) + 16;

  step('households');
  await w.run(`
    CREATE OR REPLACE TEMP TABLE gen_hh AS
    WITH h AS (SELECT ${p.firstHouseholdKey}::BIGINT + range AS household_key, rnd(${p.firstHouseholdKey}::BIGINT + range, 'hs') AS u FROM range(${nh})),
    s AS (SELECT household_key, CASE WHEN u < 0.28 THEN 1 WHEN u < 0.62 THEN 2 WHEN u < 0.77 THEN 3 WHEN u < 0.90 THEN 4 WHEN u < 0.96 THEN 5 ELSE 6 END AS size FROM h),
    c AS (SELECT *, SUM(size) OVER (ORDER BY household_key ROWS UNBOUNDED PRECEDING) - size AS first_idx FROM s),
    t AS (SELECT *, ${p.firstPersonKey}::BIGINT + first_idx AS head_key,
            CASE WHEN size = 1 THEN 'single' WHEN size >= 5 OR rnd(household_key, 'ht') < 0.82 THEN 'family' ELSE 'roommates' END AS hh_type
          FROM c WHERE first_idx < ${p.persons}),
    a AS (SELECT *, CASE WHEN hh_type = 'family' AND size >= 3 THEN 24 + floor(rnd(household_key, 'ha') * 30)
                    ELSE 19 + floor(rnd(household_key, 'ha') * 62) + floor(rnd(household_key, 'hb') * rnd(household_key, 'hc') * 18) END::INT AS head_age,
                 rnd(head_key, 'edu') AS head_edu_u
          FROM t),
    i AS (SELECT *, greatest(9000, round(
            -- A CASE, not a list literal: DuckDB builds a list literal again for every row.
            (CASE WHEN head_edu_u < 0.09 THEN 22000 WHEN head_edu_u < 0.37 THEN 38000 WHEN head_edu_u < 0.65 THEN 52000 WHEN head_edu_u < 0.87 THEN 80000 ELSE 112000 END)
            * greatest(0.45, 1 - 0.7 * pow((head_age - 48) / 40.0, 2))
            * CASE hh_type WHEN 'family' THEN 1.55 WHEN 'roommates' THEN 1.3 ELSE 1.0 END
            * exp(nrm(household_key, 'inc') * 0.45), -2))::INT AS household_income
          FROM a),
    z AS (SELECT i.*, r.zip5, r.city, r.state, r.lat, r.lon FROM i
          JOIN zip_buckets b ON b.bucket = floor(rnd(i.household_key, 'zip') * ${ZIP_BUCKETS})::BIGINT
          JOIN ref_zips r ON r.zip5 = b.zip5),
    o AS (SELECT *, rnd(household_key, 'own') < least(0.93, greatest(0.04, -0.2 + 0.013 * head_age + ln(household_income / 50000.0) * 0.25
                 + CASE hh_type WHEN 'family' THEN 0.12 WHEN 'roommates' THEN -0.25 ELSE 0 END)) AS homeowner
          FROM z)
    SELECT o.*,
      CASE WHEN homeowner THEN (greatest(60000, household_income * (2.2 + rnd(household_key, 'hv') * 2.8)
        * CASE WHEN state IN ('CA', 'HI') THEN 2.0 WHEN state IN ('MA', 'WA', 'NY', 'NJ', 'DC', 'CO') THEN 1.5 ELSE 1.0 END) / 1000)::INT * 1000 END AS home_value,
      CASE WHEN rnd(household_key, 'dw') < CASE WHEN homeowner THEN 0.1 ELSE 0.6 END THEN 'multi_family' ELSE 'single_family' END AS dwelling_type,
      house_no(household_key, 0) || ' ' || sp.line AS address_1, up.line AS unit_,
      ${rd} - CAST(floor(pow(rnd(household_key, 'mi'), 1.6) * least(head_age - 18, 35) * 365.25) AS INT) AS hh_moved_in,
      hh_type = 'family' AND size >= 3 AS kids_likely
    FROM o
    JOIN street_pool sp ON sp.slot = slot3(household_key, 'st', 0, ${POOL.street})
    JOIN unit_pool up ON up.slot = slot3(household_key, 'ut', 0, ${POOL.unit})`);

  step('persons');
  const pk = `${p.firstPersonKey}::BIGINT + first_idx + member`;
  await w.run(`
    CREATE OR REPLACE TEMP TABLE gen_p1 AS
    WITH m AS (SELECT *, unnest(range(size)) AS member FROM gen_hh),
    k AS (SELECT *, ${pk} AS person_key, ${seed}::BIGINT AS seed_ FROM m WHERE first_idx + member < ${p.persons}),
    r AS (SELECT *, CASE
        WHEN member = 0 THEN 'head' WHEN hh_type = 'family' AND member = 1 THEN 'spouse'
        WHEN hh_type = 'family' THEN 'child' ELSE 'roommate' END AS role FROM k),
    g AS (SELECT *,
        CASE role WHEN 'head' THEN head_age
          WHEN 'spouse' THEN greatest(18, head_age + floor(nrm(person_key, 'sa') * 4))
          WHEN 'child' THEN greatest(0, floor(rnd(person_key, 'ca') * least(head_age - 19, 24)))
          ELSE greatest(18, head_age + floor(nrm(person_key, 'ra') * 6)) END::INT AS age0,
        CASE WHEN role = 'spouse' THEN (CASE WHEN rnd(household_key, 'hg') < 0.5 THEN 'F' ELSE 'M' END) = (CASE WHEN rnd(person_key, 'sg') < 0.95 THEN 'M' ELSE 'F' END)
          WHEN role = 'head' THEN rnd(household_key, 'hg') < 0.5 ELSE rnd(person_key, 'g') < 0.5 END AS is_male,
        CASE WHEN role = 'roommate' OR (role = 'spouse' AND rnd(person_key, 'own_sn') < 0.12) THEN person_key ELSE -household_key END AS surname_key
      FROM r),
    d AS (SELECT *, CASE WHEN is_male THEN 'M' ELSE 'F' END AS gender,
        ${rd} - CAST(floor((age0 + rnd(person_key, 'bd')) * 365.25) AS INT) AS dob FROM g),
    -- First and middle names join on one composite key each (see firstNameKeySql: no fn-mn join edge).
    dk AS (SELECT *, least(2020, greatest(1880, year(dob) // 10 * 10))::INT AS decade_,
        ${firstNameKeySql('decade_', 'gender', `floor(rnd(person_key, 'fn') * ${FIRST_NAME_BUCKETS})::BIGINT`)} AS fn_b,
        ${firstNameKeySql('decade_', 'gender', `floor(rnd(person_key, 'mn') * ${FIRST_NAME_BUCKETS})::BIGINT`)} AS mn_b,
        floor(rnd(surname_key, 'sn') * ${SURNAME_BUCKETS})::BIGINT AS sn_b FROM d),
    n AS (SELECT d.* EXCLUDE (decade_, fn_b, mn_b, sn_b), fn.first_name, CASE WHEN rnd(person_key, 'has_mn') < 0.8 THEN mn.first_name END AS middle_name, sn.last_name
      FROM dk d
      JOIN first_name_buckets fn ON fn.k = d.fn_b
      JOIN first_name_buckets mn ON mn.k = d.mn_b
      JOIN surname_buckets sn ON sn.bucket = d.sn_b),
    e AS (SELECT n.*, date_sub('year', dob, ${rd})::INT AS age,
        CASE WHEN age0 < 18 THEN NULL ELSE (CASE WHEN age0 >= 65 THEN 0.85 ELSE 1.0 END) * CASE WHEN role = 'head' THEN head_edu_u ELSE rnd(person_key, 'edu') END END AS edu_v,
        rnd(person_key, 'occ') AS occ_u, rnd(person_key, 'mar') AS mar_u, nl.nicknames,
        -- Drawn for everyone and used conditionally: a list literal inside a CASE branch is rebuilt per row.
        rnd(person_key, 'sfk') AS sfx_u
      FROM n LEFT JOIN nickname_lists nl ON nl.first_name = n.first_name),
    f AS (SELECT *,
        CASE WHEN edu_v IS NULL THEN NULL WHEN edu_v < 0.09 THEN 'less_than_high_school' WHEN edu_v < 0.37 THEN 'high_school'
          WHEN edu_v < 0.65 OR age < 22 THEN 'some_college' WHEN edu_v < 0.87 THEN 'bachelors' ELSE 'graduate' END AS education,
        CASE WHEN age < 18 THEN 'single' WHEN role IN ('head', 'spouse') AND hh_type = 'family' THEN (CASE WHEN mar_u < 0.88 THEN 'married' ELSE 'single' END)
          WHEN role = 'child' THEN 'single' WHEN role = 'roommate' OR (hh_type = 'roommates') THEN (CASE WHEN mar_u < 0.75 THEN 'single' ELSE 'divorced' END)
          WHEN age < 30 THEN 'single' WHEN age < 60 THEN (CASE WHEN mar_u < 0.55 THEN 'single' WHEN mar_u < 0.92 THEN 'divorced' ELSE 'widowed' END)
          ELSE (CASE WHEN mar_u < 0.3 THEN 'single' WHEN mar_u < 0.6 THEN 'divorced' ELSE 'widowed' END) END AS marital_status,
        CASE WHEN age < 25 THEN 0 WHEN age < 55 THEN 1 ELSE 2 END AS age_grp,
        household_income >= 150000 AS rich_, kids_likely AS kids_
      FROM e),
    o AS (SELECT *, CASE WHEN age < 14 THEN NULL WHEN age < 18 THEN 'student' WHEN age < 23 AND occ_u < 0.6 THEN 'student'
          WHEN age >= 67 AND occ_u < 0.85 THEN 'retired'
          WHEN education IN ('graduate', 'bachelors') THEN (CASE WHEN occ_u < 0.22 THEN 'management' WHEN occ_u < 0.5 THEN 'professional' WHEN occ_u < 0.62 THEN 'technology' WHEN occ_u < 0.76 THEN 'healthcare' WHEN occ_u < 0.88 THEN 'education' ELSE 'sales' END)
          WHEN education = 'some_college' THEN (CASE WHEN occ_u < 0.1 THEN 'management' WHEN occ_u < 0.25 THEN 'office_admin' WHEN occ_u < 0.45 THEN 'sales' WHEN occ_u < 0.6 THEN 'service' WHEN occ_u < 0.72 THEN 'healthcare' WHEN occ_u < 0.8 THEN 'technology' WHEN occ_u < 0.9 THEN 'trades' ELSE 'homemaker' END)
          ELSE (CASE WHEN occ_u < 0.25 THEN 'service' WHEN occ_u < 0.5 THEN 'trades' WHEN occ_u < 0.65 THEN 'office_admin' WHEN occ_u < 0.8 THEN 'sales' WHEN occ_u < 0.9 THEN 'homemaker' ELSE 'healthcare' END) END AS occupation_group
      FROM f),
    wz AS (SELECT o.*, CASE WHEN age BETWEEN 18 AND 70 AND occupation_group NOT IN ('retired', 'student', 'homemaker') AND rnd(person_key, 'wk') < 0.45
          THEN coalesce(CASE WHEN rnd(person_key, 'wst') < 0.85 THEN sb.zip5 END, nb.zip5) END AS work_zip5
      FROM o
      LEFT JOIN state_zip_buckets sb ON sb.grp = o.state AND sb.bucket = floor(rnd(person_key, 'wsz') * ${STATE_ZIP_BUCKETS})::BIGINT
      LEFT JOIN zip_buckets nb ON nb.bucket = floor(rnd(person_key, 'wnz') * ${ZIP_BUCKETS})::BIGINT)
    -- Only what later statements read: at 10M persons every extra column here is spilled to disk.
    SELECT person_key, household_key, first_name, middle_name, last_name, is_male, gender, dob, age, sfx_u,
      CASE WHEN nicknames IS NOT NULL AND rnd(person_key, 'nick') < 0.3 THEN nicknames[1 + floor(rnd(person_key, 'nk') * len(nicknames))::INT] END AS nickname,
      address_1, unit_, dwelling_type, city, state, zip5, lat, lon, hh_moved_in, work_zip5, homeowner, home_value, household_income,
      household_income * greatest(0.2, (age - 18) / 8.0) * exp(nrm(person_key, 'nw') * 0.8) AS nw_v,
      education, marital_status, occupation_group, rich_, kids_
    FROM wz`);
  await w.run('DROP TABLE gen_hh');
  step('emails');
  await w.run(emailsSql(seed));
  step('phones');
  await w.run(`
    CREATE OR REPLACE TEMP TABLE gen_phones AS
    WITH p AS (SELECT g.person_key, g.household_key, g.age, a.codes FROM gen_p1 g JOIN area_codes a ON a.state = g.state),
    x AS (
      SELECT person_key, household_key, us_phone(codes, person_key, 1) AS phone, 'mobile' AS kind FROM p WHERE age >= 13 AND rnd(person_key, 'mob') < 0.9
      UNION ALL SELECT person_key, household_key, us_phone(codes, person_key, 2), 'mobile' FROM p WHERE age >= 18 AND rnd(person_key, 'mob2') < 0.08
      UNION ALL SELECT person_key, household_key, us_phone(codes, household_key, 3), 'landline' FROM p WHERE age >= 18 AND rnd(household_key, 'land') < 0.3)
    SELECT person_key, phone, sha256(phone) AS phone_sha256, kind FROM x
    -- A number belongs to one household: later collisions of the random draw are dropped.
    QUALIFY household_key = min(household_key) OVER (PARTITION BY phone)`);
  step('addresses');
  await w.run(`
    CREATE OR REPLACE TEMP TABLE gen_addresses AS
    WITH p AS (SELECT person_key, state, dob, greatest(hh_moved_in, dob) AS moved_in, age,
        CASE WHEN age < 18 THEN 0 WHEN rnd(person_key, 'np') < 0.35 THEN 0 WHEN rnd(person_key, 'np') < 0.65 THEN 1 WHEN rnd(person_key, 'np') < 0.85 THEN 2 ELSE 3 END AS n_prev
      FROM gen_p1),
    h AS (SELECT person_key, state, dob, moved_in, unnest(range(1, n_prev + 1)) AS j FROM p WHERE n_prev > 0),
    d AS (SELECT *, moved_in - CAST((j - 1) * 365 + floor(list_sum([rnd3(person_key, 'dur', i) FOR i IN range(1, j)]) * 2555) AS INT) AS moved_out_,
                 CAST(365 + floor(rnd3(person_key, 'dur', j) * 2555) AS INT) AS dur FROM h),
    z AS (SELECT d.person_key, d.j, d.moved_out_ - d.dur AS moved_in, d.moved_out_ AS moved_out, up.line AS unit_, r.*
      FROM d
      LEFT JOIN state_zip_buckets sb ON sb.grp = d.state AND sb.bucket = floor(rnd3(person_key, 'hsz', j) * ${STATE_ZIP_BUCKETS})::BIGINT
      LEFT JOIN zip_buckets nb ON nb.bucket = floor(rnd3(person_key, 'hnz', j) * ${ZIP_BUCKETS})::BIGINT
      JOIN ref_zips r ON r.zip5 = CASE WHEN rnd3(person_key, 'hs', j) < 0.55 THEN sb.zip5 ELSE nb.zip5 END
      JOIN unit_pool up ON up.slot = slot3(d.person_key, 'ut', 10 + d.j, ${POOL.unit})
      WHERE d.moved_out_ - d.dur > d.dob + INTERVAL 18 YEAR)
    -- Only the history: the current address is copied from persons once they are written.
    SELECT person_key, house_no(person_key, 10 + j) || ' ' || sp.line, CASE WHEN rnd3(person_key, 'hu', j) < 0.3 THEN unit_ END,
      city, state, zip5, left(zip5, 3), round(lat + (rnd3(person_key, 'hla', j) - 0.5) * 0.03, 6), round(lon + (rnd3(person_key, 'hlo', j) - 0.5) * 0.03, 6),
      false, moved_in, moved_out FROM z JOIN street_pool sp ON sp.slot = slot3(person_key, 'st', 10 + j, ${POOL.street})`);
}

/**
 * The persons rows of the staged gen_p1: pools and masks by equality joins on small tables. It is the
 * SELECT of the final INSERT (see copyStagingIntoRelease), so the 45-column rows are written once,
 * straight into the release table, instead of through another TEMP table.
 */
export function personsSelectSql(releaseDate: string): string {
  const DATE_RD = `DATE ${lit(releaseDate)}`;
  return `
    SELECT person_key, household_key, first_name, middle_name, last_name,
      CASE WHEN is_male AND age >= 18 AND rnd(person_key, 'sfx') < 0.035 THEN
        (CASE WHEN sfx_u < 0.45 THEN 'JR' WHEN sfx_u < 0.64 THEN 'SR' WHEN sfx_u < 0.73 THEN 'II' WHEN sfx_u < 0.91 THEN 'III' ELSE 'IV' END) END AS name_suffix,
      nickname, gender, dob, age, address_1,
      CASE WHEN dwelling_type = 'multi_family' THEN unit_ END AS address_2,
      wz.city, wz.state, wz.zip5, left(wz.zip5, 3) AS zip3,
      round(wz.lat + (rnd(household_key, 'lat') - 0.5) * 0.03, 6) AS lat, round(wz.lon + (rnd(household_key, 'lon') - 0.5) * 0.03, 6) AS lon,
      greatest(hh_moved_in, dob) AS moved_in, date_sub('year', greatest(hh_moved_in, dob), ${DATE_RD})::INT AS length_of_residence,
      CASE WHEN work_zip5 IS NOT NULL THEN house_no(person_key, 9) || ' ' || ws.line END AS work_address_1,
      CASE WHEN work_zip5 IS NOT NULL AND rnd(person_key, 'ws') < 0.4 THEN 'STE ' || (100 + floor(rnd(person_key, 'wsn') * 900)::INT)::VARCHAR END AS work_address_2,
      wr.city AS work_city, wr.state AS work_state, work_zip5,
      dwelling_type, homeowner, home_value, household_income,
      ${bandExpr('household_income', INCOME_BAND_BOUNDS, INCOME_BANDS)} AS income_band,
      ${bandExpr('nw_v', [0, 25000, 100000, 250000, 500000, 1000000, 1e12], ['lt_25k', '25k_100k', '100k_250k', '250k_500k', '500k_1m', '1m_plus'])} AS net_worth_band,
      education, marital_status, occupation_group,
      mp.interests_mask, mp.purchase_behaviors_mask
    FROM gen_p1 wz
    LEFT JOIN ref_zips wr ON wr.zip5 = wz.work_zip5
    LEFT JOIN street_pool ws ON ws.slot = CASE WHEN wz.work_zip5 IS NOT NULL THEN slot3(person_key, 'st', 9, ${POOL.street}) END
    JOIN mask_pool mp ON mp.combo = ${maskComboSql('age', 'gender', 'rich_', 'kids_')} AND mp.slot = slot(person_key, 'mask', ${POOL.mask})`;
}

function emailsSql(seed: number): string {
  const localPart = `CASE pat
      WHEN 0 THEN fn || '.' || ln WHEN 1 THEN fn || ln || lpad((hv % 100)::VARCHAR, 2, '0') WHEN 2 THEN left(fn, 1) || ln
      WHEN 3 THEN fn || '_' || ln WHEN 4 THEN fn || '.' || ln || lpad((year(dob) % 100)::VARCHAR, 2, '0') WHEN 5 THEN ln || '.' || fn
      WHEN 6 THEN fn || left(ln, 1) || (100 + hv % 900)::VARCHAR ELSE fn || year(dob)::VARCHAR END`;
  return `
    CREATE OR REPLACE TEMP TABLE gen_emails AS
    WITH p AS (SELECT person_key, dob, work_zip5 IS NOT NULL AS worker,
        regexp_replace(lower(first_name), '[^a-z]', '', 'g') AS fn, regexp_replace(lower(last_name), '[^a-z]', '', 'g') AS ln,
        CASE WHEN age < 13 THEN 0 WHEN rnd(person_key, 'ne') < 0.12 THEN 0 WHEN rnd(person_key, 'ne') < 0.57 THEN 1 WHEN rnd(person_key, 'ne') < 0.87 THEN 2 ELSE 3 END AS n
      FROM gen_p1),
    e AS (SELECT *, unnest(range(1, n + 1)) AS ord FROM p WHERE n > 0),
    l AS (SELECT *, CASE WHEN ord = 2 AND worker THEN 'work' ELSE 'personal' END AS kind,
        floor(rnd3(person_key, 'ep', ord) * 8)::INT AS pat, hash(person_key, 'ed', ord, ${seed}::BIGINT) AS hv,
        ep.domain AS emp_, dp.domain AS dom_ FROM e
        JOIN employer_pool ep ON ep.slot = slot(person_key, 'emp', ${POOL.employer})
        JOIN domain_pool dp ON dp.slot = slot3(person_key, 'dom', ord, ${POOL.domain})),
    x AS (SELECT person_key, ord, kind, CASE WHEN kind = 'work'
          THEN (CASE WHEN pat < 5 THEN fn || '.' || ln ELSE left(fn, 1) || ln END) || '@' || emp_
          ELSE ${localPart} || '@' || dom_ END AS email FROM l)
    SELECT person_key, email, sha256(email) AS email_sha256, kind FROM x
    -- An address belongs to one person: the first person to draw it keeps it.
    QUALIFY row_number() OVER (PARTITION BY email ORDER BY person_key, ord) = 1`;
}
