/**
 * Releases derived from the current one. The current file is ATTACHed READ_ONLY (it is in use by
 * readers) and copied into a new release file:
 * - `releaseMinor`: same major, minor + 1. Adds persons (new keys above the current maximum) and
 *   redraws demographics of some existing persons (interests, purchase behaviours, household income).
 *   Identity attributes (names, emails, phones, addresses, dob) and keys never change: a delivered
 *   identity stays valid within a major (spec section 9).
 * - `releaseMajor`: major + 1, minor 0. The same, plus identity churn: some households move (new
 *   current address; the old one stays in `addresses` with moved_out) and some persons gain an email.
 * Every draw is `hash(key, field, seed)`; the default seed is derived from the new version number, so a
 * re-run of the same release step over the same input gives the same content.
 */
import { buildRelease, stageReporter, todayIso, type ProgressFn } from './build.ts';
import { lit } from './duck.ts';
import { GraphReleaseError } from './errors.ts';
import { bandExpr, generateStaging } from './generate-sql.ts';
import { copyStagingIntoRelease } from './generate.ts';
import { POOL, maskComboSql } from './pools.ts';
import { ZIP_BUCKETS } from './reference.ts';
import { readCurrentRelease, releaseFilePath, type ReleaseInfo } from './releases.ts';
import { INCOME_BAND_BOUNDS, INCOME_BANDS } from './vocab.ts';

export interface DeriveReleaseOptions {
  dataDir: string;
  seed?: number;
  /** YYYY-MM-DD ages and move dates are computed at; defaults to today. */
  releaseDate?: string;
  /** New persons as a share of the current count (default 0.01). */
  growth?: number;
  /** Share of persons whose interests and purchase behaviours are redrawn (default 0.05). */
  demographicChange?: number;
  /** Major only: share of households that move (default 0.03) and persons that gain an email (0.02). */
  moveRate?: number;
  newEmailRate?: number;
  memoryLimit?: string;
  threads?: number;
  onProgress?: ProgressFn;
}

export const DERIVE_STAGES = ['read', 'new persons', 'changes', 'copy', 'write', 'done'] as const;

export function releaseMinor(o: DeriveReleaseOptions): Promise<ReleaseInfo> {
  return derive(o, 'minor');
}

export function releaseMajor(o: DeriveReleaseOptions): Promise<ReleaseInfo> {
  return derive(o, 'major');
}

async function derive(o: DeriveReleaseOptions, kind: 'minor' | 'major'): Promise<ReleaseInfo> {
  const step = stageReporter(DERIVE_STAGES, o.onProgress);
  step('read');
  const current = readCurrentRelease(o.dataDir);
  if (!current) throw new GraphReleaseError(`No current data release in ${o.dataDir}: generate or import a graph first.`);
  const major = kind === 'major' ? current.major + 1 : current.major;
  const minor = kind === 'major' ? 0 : current.minor + 1;
  const seed = Math.trunc(o.seed ?? major * 1000 + minor);
  const releaseDate = o.releaseDate ?? todayIso();
  const rd = `DATE ${lit(releaseDate)}`;
  const churn = kind === 'major';
  const info = await buildRelease({
    dataDir: o.dataDir,
    major,
    minor,
    source: kind,
    seed,
    releaseDate,
    memoryLimit: o.memoryLimit,
    threads: o.threads,
    fill: async (w) => {
      await w.run(`ATTACH ${lit(releaseFilePath(o.dataDir, current))} AS prev (READ_ONLY)`);
      const n = Number(await w.scalar<bigint>('SELECT count(*) FROM prev.persons'));
      const maxKey = Number(await w.scalar<bigint>('SELECT coalesce(max(person_key), 0) FROM prev.persons'));
      const maxHh = Number(await w.scalar<bigint>('SELECT coalesce(max(household_key), 0) FROM prev.persons'));
      step('new persons');
      // New persons come from the generator (which also creates the macros and pools used below).
      const added = Math.max(1, Math.round(n * (o.growth ?? 0.01)));
      await generateStaging(w, { seed, persons: added, firstPersonKey: maxKey + 1, firstHouseholdKey: maxHh + 1, releaseDate });
      step('changes');
      const moveRate = churn ? (o.moveRate ?? 0.03) : 0;
      const emailRate = churn ? (o.newEmailRate ?? 0.02) : 0;
      // Households that move: a new current address anywhere in the country, weighted by population.
      await w.run(`
        CREATE OR REPLACE TEMP TABLE movers AS
        SELECT h.household_key, house_no(h.household_key, 100) || ' ' || sp.line AS address_1,
          CASE WHEN rnd(h.household_key, 'mu') < 0.3 THEN up.line END AS address_2, r.city, r.state, r.zip5, left(r.zip5, 3) AS zip3,
          round(r.lat + (rnd(h.household_key, 'mla') - 0.5) * 0.03, 6) AS lat, round(r.lon + (rnd(h.household_key, 'mlo') - 0.5) * 0.03, 6) AS lon
        FROM (SELECT DISTINCT household_key FROM prev.persons WHERE household_key IS NOT NULL) h
        JOIN zip_buckets b ON b.bucket = floor(rnd(h.household_key, 'mz') * ${ZIP_BUCKETS})::BIGINT
        JOIN ref_zips r ON r.zip5 = b.zip5
        JOIN street_pool sp ON sp.slot = slot(h.household_key, 'mst', ${POOL.street})
        JOIN unit_pool up ON up.slot = slot(h.household_key, 'mut', ${POOL.unit})
        WHERE rnd(h.household_key, 'move') < ${moveRate}`);
      // Income drifts for some households; the whole household changes together.
      await w.run(`
        CREATE OR REPLACE TEMP TABLE income_changes AS
        SELECT household_key, greatest(9000, round(max(household_income) * exp(nrm(household_key, 'dinc') * 0.25), -2))::INT AS household_income
        FROM prev.persons WHERE household_key IS NOT NULL AND household_income IS NOT NULL AND rnd(household_key, 'chinc') < ${(o.demographicChange ?? 0.05) / 2}
        GROUP BY household_key`);
      // New emails of existing persons; an address already in use (old graph or new persons) is skipped.
      await w.run(`
        CREATE OR REPLACE TEMP TABLE new_emails AS
        WITH c AS (SELECT p.person_key, regexp_replace(lower(p.first_name), '[^a-z]', '', 'g') AS fn,
            regexp_replace(lower(p.last_name), '[^a-z]', '', 'g') AS ln, dp.domain
          FROM prev.persons p JOIN domain_pool dp ON dp.slot = slot(p.person_key, 'ned', ${POOL.domain})
          WHERE p.age >= 13 AND rnd(p.person_key, 'newemail') < ${emailRate}),
        x AS (SELECT person_key, fn || '.' || ln || (1 + slot(person_key, 'nen', 9999))::VARCHAR || '@' || domain AS email
          FROM c WHERE fn <> '' AND ln <> '')
        SELECT person_key, email, sha256(email) AS email_sha256, 'personal' AS kind FROM x
        WHERE email NOT IN (SELECT email FROM prev.emails)
        QUALIFY row_number() OVER (PARTITION BY email ORDER BY person_key) = 1`);
      // New persons' random emails and phones must not take an address or number already in use.
      await w.run(`DELETE FROM gen_emails WHERE email IN (SELECT email FROM prev.emails UNION ALL SELECT email FROM new_emails)`);
      await w.run(`DELETE FROM gen_phones WHERE phone IN (SELECT phone FROM prev.phones)`);

      // Persons whose interests and purchase behaviours are redrawn, as an equi-join (a LEFT JOIN whose ON
      // clause also filters the left side cannot be a hash join: at 200k persons it took a minute).
      await w.run(`
        CREATE OR REPLACE TEMP TABLE redrawn_masks AS
        SELECT p.person_key, mp.interests_mask, mp.purchase_behaviors_mask
        FROM prev.persons p
        JOIN mask_pool mp ON mp.combo = ${maskComboSql('p.age', 'p.gender', 'p.household_income >= 150000', 'p.presence_of_children')}
          AND mp.slot = slot(p.person_key, 'mask2', ${POOL.mask})
        WHERE rnd(p.person_key, 'chg') < ${o.demographicChange ?? 0.05}`);
      step('copy');
      const moved = (col: string) => `CASE WHEN m.household_key IS NOT NULL THEN m.${col} ELSE p.${col} END AS ${col}`;
      await w.run(`
        INSERT INTO persons BY NAME
        SELECT p.* REPLACE (
          ${['address_1', 'address_2', 'city', 'state', 'zip5', 'zip3', 'lat', 'lon'].map(moved).join(', ')},
          CASE WHEN m.household_key IS NOT NULL THEN ${rd} ELSE p.moved_in END AS moved_in,
          CASE WHEN m.household_key IS NOT NULL THEN 0 ELSE date_sub('year', p.moved_in, ${rd})::INT END AS length_of_residence,
          CASE WHEN p.dob IS NULL THEN p.age ELSE date_sub('year', p.dob, ${rd})::INT END AS age,
          coalesce(ic.household_income, p.household_income) AS household_income,
          CASE WHEN ic.household_key IS NULL THEN p.income_band ELSE ${bandExpr('ic.household_income', INCOME_BAND_BOUNDS, INCOME_BANDS)} END AS income_band,
          coalesce(mp.interests_mask, p.interests_mask) AS interests_mask,
          coalesce(mp.purchase_behaviors_mask, p.purchase_behaviors_mask) AS purchase_behaviors_mask,
          p.has_email OR ne.person_key IS NOT NULL AS has_email)
        FROM prev.persons p
        LEFT JOIN movers m ON m.household_key = p.household_key
        LEFT JOIN income_changes ic ON ic.household_key = p.household_key
        LEFT JOIN (SELECT DISTINCT person_key FROM new_emails) ne ON ne.person_key = p.person_key
        LEFT JOIN redrawn_masks mp ON mp.person_key = p.person_key
        ORDER BY p.person_key`);
      await w.run(
        `INSERT INTO emails BY NAME SELECT * FROM (SELECT * FROM prev.emails UNION ALL SELECT * FROM new_emails) ORDER BY person_key, email`,
      );
      await w.run('INSERT INTO phones BY NAME SELECT * FROM prev.phones');
      // Movers: the old current address becomes history (moved_out = release date), the new one is current.
      await w.run(`
        INSERT INTO addresses BY NAME
        SELECT * FROM (
          SELECT a.* REPLACE (a.is_current AND m.household_key IS NULL AS is_current,
            CASE WHEN a.is_current AND m.household_key IS NOT NULL THEN ${rd} ELSE a.moved_out END AS moved_out)
          FROM prev.addresses a
          LEFT JOIN (SELECT person_key, household_key FROM prev.persons) pp ON pp.person_key = a.person_key
          LEFT JOIN movers m ON m.household_key = pp.household_key
          UNION ALL
          SELECT p.person_key, m.address_1, m.address_2, m.city, m.state, m.zip5, m.zip3, m.lat, m.lon, true, ${rd}, NULL::DATE
          FROM prev.persons p JOIN movers m ON m.household_key = p.household_key)
        ORDER BY person_key, is_current DESC, moved_in DESC`);
      step('write');
      // Appends the new persons (keys above the old maximum, so person order holds) and rebuilds households.
      await copyStagingIntoRelease(w, releaseDate);
      await w.run(
        'DROP TABLE IF EXISTS movers; DROP TABLE IF EXISTS income_changes; DROP TABLE IF EXISTS new_emails; DROP TABLE IF EXISTS redrawn_masks',
      );
      await w.run('DETACH prev');
    },
  });
  o.onProgress?.({ step: 'done', done: DERIVE_STAGES.length, total: DERIVE_STAGES.length });
  return info;
}
