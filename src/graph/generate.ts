/**
 * `generateGraph`: a new major release holding a fresh synthetic identity graph.
 */
import { buildRelease, stageReporter, todayIso, type ProgressFn } from './build.ts';
import { generateStaging, personsSelectSql } from './generate-sql.ts';
import { nextMajor, readCurrentRelease, type ReleaseInfo } from './releases.ts';
import { FILL_HOUSEHOLDS_SQL } from './schema.ts';

export interface GenerateGraphOptions {
  dataDir: string;
  persons: number;
  seed: number;
  /** YYYY-MM-DD the ages are computed at; defaults to today. Fix it to compare two generations. */
  releaseDate?: string;
  memoryLimit?: string;
  threads?: number;
  onProgress?: ProgressFn;
}

export const GENERATE_STAGES = ['reference', 'households', 'persons', 'emails', 'phones', 'addresses', 'write', 'done'] as const;

export async function generateGraph(o: GenerateGraphOptions): Promise<ReleaseInfo> {
  if (!Number.isInteger(o.persons) || o.persons < 1) throw new Error('persons must be a positive integer');
  const step = stageReporter(GENERATE_STAGES, o.onProgress);
  const releaseDate = o.releaseDate ?? todayIso();
  const { major, minor } = nextMajor(readCurrentRelease(o.dataDir));
  const info = await buildRelease({
    dataDir: o.dataDir,
    major,
    minor,
    source: 'generate',
    seed: o.seed,
    releaseDate,
    memoryLimit: o.memoryLimit,
    threads: o.threads,
    fill: async (w) => {
      await generateStaging(w, { seed: o.seed, persons: o.persons, firstPersonKey: 1, firstHouseholdKey: 1, releaseDate, onStage: step });
      step('write');
      await copyStagingIntoRelease(w, releaseDate);
    },
  });
  o.onProgress?.({ step: 'done', done: GENERATE_STAGES.length, total: GENERATE_STAGES.length });
  return info;
}

/**
 * Writes the gen_* staging tables into the release tables, in key order so zone maps prune lookups.
 * Persons are selected straight from gen_p1 (never a second TEMP copy); their current address rows are
 * then copied from persons. Keys of staged persons are above any key already in the release.
 */
export async function copyStagingIntoRelease(w: { run(sql: string): Promise<void> }, releaseDate: string): Promise<void> {
  // Household aggregates by GROUP BY and has_* by semi-join sets: cheaper than window functions and
  // IN-subqueries over the whole table. The ORDER BY is needed: hash joins do not keep gen_p1's
  // order (a test checks the stored order), and it is the reason for the 6 GB writer limit at 10M.
  await w.run(`
    INSERT INTO persons BY NAME
    SELECT g.*, h.household_size, h.presence_of_children,
      e.person_key IS NOT NULL AS has_email, f.person_key IS NOT NULL AS has_phone
    FROM (${personsSelectSql(releaseDate)}) g
    JOIN (SELECT household_key, count(*)::INT AS household_size, bool_or(age < 18) AS presence_of_children
          FROM gen_p1 GROUP BY household_key) h ON h.household_key = g.household_key
    LEFT JOIN (SELECT DISTINCT person_key FROM gen_emails) e ON e.person_key = g.person_key
    LEFT JOIN (SELECT DISTINCT person_key FROM gen_phones) f ON f.person_key = g.person_key
    ORDER BY g.person_key`);
  await w.run('INSERT INTO emails BY NAME SELECT * FROM gen_emails ORDER BY person_key, email');
  await w.run('INSERT INTO phones BY NAME SELECT * FROM gen_phones ORDER BY person_key, phone');
  await w.run(`
    INSERT INTO addresses BY NAME
    SELECT * FROM (
      SELECT person_key, address_1, address_2, city, state, zip5, zip3, lat, lon, true AS is_current, moved_in, NULL::DATE AS moved_out
      FROM persons WHERE person_key >= (SELECT min(person_key) FROM gen_p1)
      UNION ALL SELECT * FROM gen_addresses)
    ORDER BY person_key, is_current DESC, moved_in DESC`);
  await w.run(FILL_HOUSEHOLDS_SQL);
  await w.run(
    'DROP TABLE IF EXISTS gen_p1; DROP TABLE IF EXISTS gen_emails; DROP TABLE IF EXISTS gen_phones; DROP TABLE IF EXISTS gen_addresses; DROP TABLE IF EXISTS gen_hh',
  );
}
