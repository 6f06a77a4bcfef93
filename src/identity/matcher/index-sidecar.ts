/**
 * The match index: a write-once sidecar DuckDB file next to a release ("<release>.match.duckdb").
 *
 * Why a sidecar and not keys computed at match time: the release has no normalized blocking keys
 * (gmail-folded email hashes, address keys without suffix/directionals, surname+ZIP, dob+name), and
 * computing them per query means a regex over every graph row: fine for a 1M-row file (one scan),
 * far too slow for a 100-row micro-batch that must answer in tens of milliseconds at 10M persons.
 * The sidecar holds the keys once, as 64-bit integers, with an ART index for micro-batch point
 * lookups (`k IN (...)`) and plain columnar scans for file matching hash joins. The release file
 * itself is never written. The graph engineer / lead calls `buildMatchIndex` when a release is
 * built; `matchIndexPath` tells readers where it is.
 *
 * Tables: m_key (k, person_key, kind, unit), m_person (scoring attributes, one row per person),
 * m_key rows of kind street (spatial level: one anchor residence per street in a ZIP, with the
 * street's numbered range) and m_work_anchor (one worker per work ZIP).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { defaultMemoryLimit, lit, litList } from '../../graph/index.ts';
import { removeAbandonedFiles } from '../../lib/abandoned-files.ts';
import { loadStreetSuffixes } from '../reference-data.ts';
import { DIRECTIONALS } from '../normalize/address/words.ts';
import { COMMON_BLOCK_MAX, EMAIL_LOCAL_MIN, HASH_KEY_SQL, K64_SQL, KIND, SOUNDEX_SQL } from './keys.ts';
import { assertKeyHash, K64_PROBE } from './key-hash.ts';
import { createPackedAttrs } from './attr-pack.ts';

/**
 * 2: VARCHAR columns of m_key / m_person stored uncompressed. Micro-batches fetch a few hundred rows
 * of them by ART row id, and fetching one row of an FSST segment decodes the segment up to it
 * (measured at 200k persons: 150-200 ms for 200 m_person rows with FSST, 6-25 ms uncompressed).
 * 9: m_attr packed (attr-pack.ts): dictionary codes in 64-bit words, m_attr_layout, m_attr_dict_<column>.
 * 10: blocks el: (email local part), ed: (email domain + full name, local part as unit), dp: (dob + surname
 * Soundex); m_person.last_sx (the surname's Soundex, for the phonetic level).
 * 11: m_person.house (the house number of the current address: the `house` address level, a misspelled street).
 * 12: keys reduced by part of their MD5 instead of a SHA-256 prefix (key-hash.ts), e:/p: keys on 16 hex digits of
 * the email/phone hash (keys.ts HASH_KEY_DIGITS); m_meta.k64_probe.
 * (7 and 8 named unreleased block-key attempts of decision 045; skipped so no stray file of theirs is read.)
 */
export const MATCH_INDEX_VERSION = 12;

export function matchIndexPath(releaseFile: string): string {
  return releaseFile.replace(/\.duckdb$/, '') + `.match-v${MATCH_INDEX_VERSION}.duckdb`;
}

/** Provider-folded email (same rules as emailMatchKey in normalize/email.ts). */
function foldEmailSql(e: string): string {
  const local = `split_part(${e}, '@', 1)`;
  const dom = `split_part(${e}, '@', 2)`;
  const noTag = `CASE WHEN strpos(${local}, '+') > 1 THEN left(${local}, strpos(${local}, '+') - 1) ELSE ${local} END`;
  const plusDomains = [
    'outlook.com',
    'hotmail.com',
    'live.com',
    'msn.com',
    'hotmail.co.uk',
    'outlook.co.uk',
    'icloud.com',
    'me.com',
    'mac.com',
    'fastmail.com',
    'fastmail.fm',
    'protonmail.com',
    'protonmail.ch',
    'proton.me',
    'pm.me',
  ];
  return `CASE WHEN ${dom} IN ('gmail.com', 'googlemail.com') THEN replace(${noTag}, '.', '') || '@gmail.com'
    WHEN ${dom} IN (${plusDomains.map(lit).join(', ')}) THEN ${noTag} || '@' || ${dom} ELSE ${e} END`;
}

/**
 * A relation with column `akey` added: addressKey() of normalize/address/address.ts, for canonical graph lines ("123 N MAIN ST"):
 * house | street core (no directionals, no suffix, no spaces) | zip5. A test compares it with
 * the JS key on generated addresses.
 */
function addressKeyFrom(src: string, a1: string, zip: string): string {
  const dirs = litList(Object.keys(DIRECTIONALS));
  const sfx = litList([...new Set(loadStreetSuffixes().keys())]);
  const house = `'[0-9]+[A-Z]?|[0-9]+-[0-9]+[A-Z]?'`;
  // One projection per step (nested, not lateral aliases: DuckDB inlines an alias at every use,
  // which made this chain grow exponentially).
  const s1 = `SELECT *, string_split(trim(${a1}), ' ') AS t0_ FROM ${src}`;
  const s2 = `SELECT *, len(t0_) > 1 AND regexp_full_match(t0_[1], ${house}) AS num_ FROM (${s1})`;
  const s3 = `SELECT *, CASE WHEN num_ THEN t0_[2:] ELSE t0_ END AS t1_ FROM (${s2})`;
  const s4 = `SELECT *, CASE WHEN len(t1_) >= 2 AND list_contains(${dirs}, t1_[-1]) THEN t1_[1:len(t1_) - 1] ELSE t1_ END AS t2_ FROM (${s3})`;
  const s5 = `SELECT *, CASE WHEN list_contains(${dirs}, t2_[1]) AND (len(t2_) >= 3 OR (len(t2_) = 2 AND NOT list_contains(${sfx}, t2_[2])))
      THEN t2_[2:] ELSE t2_ END AS t3_ FROM (${s4})`;
  const s6 = `SELECT *, CASE WHEN len(t3_) >= 2 AND list_contains(${sfx}, t3_[-1]) THEN t3_[1:len(t3_) - 1] ELSE t3_ END AS t4_ FROM (${s5})`;
  return `SELECT * EXCLUDE (t0_, num_, t1_, t2_, t3_, t4_),
    CASE WHEN ${a1} IS NULL OR ${zip} IS NULL THEN NULL
      WHEN regexp_full_match(${a1}, 'PO BOX [A-Z]?[0-9][A-Z0-9-]*') THEN 'POBOX|' || split_part(${a1}, ' ', 3) || '|' || ${zip}
      WHEN NOT num_ OR len(t4_) = 0 THEN NULL
      ELSE t0_[1] || '|' || array_to_string(t4_, '') || '|' || ${zip} END AS akey FROM (${s6})`;
}

/** Unit number of a canonical address_2 ("APT 12B" -> "12B", "# 5" -> "5"). */
const unitSql = (a2: string) => `nullif(regexp_extract(${a2}, '([A-Z0-9-]+)$', 1), '')`;

export interface BuildMatchIndexOptions {
  memoryLimit?: string;
  threads?: number;
  /** ART indexes for micro-batch lookups (default true; each costs build time and disk). */
  artIndexes?: boolean;
}

/** Builds (once) the sidecar for `releaseFile`; returns its path. Safe to call again: no-op. */
export async function buildMatchIndex(releaseFile: string, o: BuildMatchIndexOptions = {}): Promise<string> {
  const target = matchIndexPath(releaseFile);
  // A build killed mid-way left its temporary file (gigabytes at 10M persons): remove those of ended processes.
  removeAbandonedFiles(path.dirname(target), /^\..*\.match-v\d+\.duckdb\.(\d+)\.tmp/);
  if (fs.existsSync(target)) return target;
  const tmp = path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}.tmp`);
  for (const p of [tmp, `${tmp}.wal`]) fs.rmSync(p, { force: true });
  const inst = await DuckDBInstance.create(tmp, {
    // Half of RAM, at most 12 GB (the graph writer's default): the m_key ART (about 120M keys at 10M persons) is
    // built in memory and cannot spill; a third of 24 GiB ran out at 10M with the v10 blocks (decision 045).
    memory_limit: o.memoryLimit ?? defaultMemoryLimit(),
    threads: String(o.threads ?? Math.max(1, os.cpus().length)),
  });
  const c = await inst.connect();
  const run = (sql: string) => c.run(sql);
  /**
   * CREATE TABLE `name` AS `select`, but with every VARCHAR column `USING COMPRESSION uncompressed`
   * (point fetches by row id must not decode whole FSST segments; integers keep bitpacking, whose
   * fetch is O(1)).
   */
  const createPointFetchTable = async (name: string, select: string) => {
    const cols = (await c.runAndReadAll(`DESCRIBE ${select}`)).getRowObjectsJS() as { column_name: string; column_type: string }[];
    const defs = cols.map(
      (col) => `"${col.column_name}" ${col.column_type}${col.column_type === 'VARCHAR' ? ' USING COMPRESSION uncompressed' : ''}`,
    );
    await run(`CREATE TABLE ${name} (${defs.join(', ')})`);
    await run(`INSERT INTO ${name} ${select}`);
  };
  try {
    // Keys are reduced by this DuckDB's md5_number: it must reduce as the matcher does (key-hash.ts), or no key would ever meet.
    assertKeyHash(
      BigInt((await c.runAndReadAll(`SELECT ${K64_SQL(lit(K64_PROBE))}::VARCHAR AS k`)).getRowObjectsJS()[0]!.k as string),
      "this DuckDB's md5_number",
    );
    await run(`ATTACH ${lit(releaseFile)} AS g (READ_ONLY)`);
    await run(`CREATE TEMP TABLE addr AS
      SELECT person_key, is_current, akey, unit, zip5 FROM (${addressKeyFrom(
        `(SELECT person_key, is_current, zip5, address_1, ${unitSql('address_2')} AS unit FROM g.addresses)`,
        'address_1',
        'zip5',
      )})`);
    // Spatial level: one row per street in a ZIP with a current residence (street core | zip5), its
    // numbered range as unit "lo-hi" and, as person, the resident whose house number is nearest the
    // middle of the range (lowest person key on ties). See docs/decisions/020-honest-levels.md.
    await run(`CREATE TEMP TABLE street_anchor AS
      WITH s AS (SELECT split_part(akey, '|', 2) || '|' || zip5 AS street, person_key,
                   regexp_extract(split_part(akey, '|', 1), '^[0-9]+')::INTEGER AS h
                 FROM addr WHERE is_current AND akey IS NOT NULL AND NOT starts_with(akey, 'POBOX|')
                   AND regexp_full_match(zip5, '[0-9]{5}') AND regexp_matches(split_part(akey, '|', 1), '^[0-9]')),
      r AS (SELECT street, min(h) AS lo, max(h) AS hi, (min(h) + max(h)) / 2 AS mid FROM s GROUP BY street)
      SELECT street, lo || '-' || hi AS unit, arg_min(person_key, (abs(h - mid), person_key)) AS person_key
      FROM s JOIN r USING (street) GROUP BY street, lo, hi`);
    // Surname Soundex codes, once per distinct surname: the dp: blocks and m_person.last_sx (the phonetic level).
    await run(`CREATE TEMP TABLE surname_sx AS SELECT last_name, ${SOUNDEX_SQL('last_name')} AS sx
      FROM (SELECT DISTINCT last_name FROM g.persons WHERE last_name IS NOT NULL)`);
    // Blocks that can be common (dob + initials, full name incl. the graph nickname, email local part, email
    // domain + full name, dob + surname sound): kept only where at most COMMON_BLOCK_MAX persons share them.
    await run(`CREATE TEMP TABLE folded_email AS
      SELECT DISTINCT person_key, split_part(fe, '@', 1) AS local, split_part(fe, '@', 2) AS domain
      FROM (SELECT person_key, ${foldEmailSql('email')} AS fe FROM g.emails WHERE email IS NOT NULL)`);
    await run(`CREATE TEMP TABLE name_blocks AS
        SELECT DISTINCT ${K64_SQL(`'di:' || strftime(dob, '%Y-%m-%d') || '|' || left(f, 1) || '|' || left(last_name, 1)`)} AS k, person_key,
          ${KIND.dobInitials}::UTINYINT AS kind, NULL::VARCHAR AS unit
          FROM (SELECT person_key, dob, last_name, unnest([first_name, nickname]) AS f FROM g.persons WHERE dob IS NOT NULL AND last_name IS NOT NULL)
          WHERE f IS NOT NULL
        UNION ALL SELECT DISTINCT ${K64_SQL(`'fl:' || f || '|' || last_name`)}, person_key, ${KIND.fullName}, NULL
          FROM (SELECT person_key, last_name, unnest([first_name, nickname]) AS f FROM g.persons WHERE last_name IS NOT NULL)
          WHERE f IS NOT NULL
        UNION ALL SELECT DISTINCT ${K64_SQL(`'el:' || local`)}, person_key, ${KIND.emailLocal}, NULL
          FROM folded_email WHERE length(local) >= ${EMAIL_LOCAL_MIN}
        UNION ALL SELECT DISTINCT ${K64_SQL(`'ed:' || e.domain || '|' || p.first_name || '|' || p.last_name`)}, person_key, ${KIND.emailDomainName}, e.local
          FROM folded_email e JOIN g.persons p USING (person_key) WHERE p.first_name IS NOT NULL AND p.last_name IS NOT NULL
        UNION ALL SELECT DISTINCT ${K64_SQL(`'dp:' || strftime(p.dob, '%Y-%m-%d') || '|' || s.sx`)}, p.person_key, ${KIND.dobSoundex}, NULL
          FROM g.persons p JOIN surname_sx s USING (last_name) WHERE p.dob IS NOT NULL AND s.sx IS NOT NULL`);
    await run(`CREATE TEMP TABLE common_capped AS SELECT b.* FROM name_blocks b
      SEMI JOIN (SELECT k FROM name_blocks GROUP BY k HAVING count(DISTINCT person_key) <= ${COMMON_BLOCK_MAX}) c USING (k)`);
    await run('DROP TABLE name_blocks');
    await run('DROP TABLE folded_email');
    await createPointFetchTable(
      'm_key',
      `
      WITH e AS (SELECT person_key, email_sha256 AS h FROM g.emails
                 UNION SELECT person_key, sha256(${foldEmailSql('email')}) FROM g.emails),
      keys AS (
        SELECT ${K64_SQL(`'e:' || ${HASH_KEY_SQL('h')}`)} AS k, person_key, ${KIND.email}::UTINYINT AS kind, NULL::VARCHAR AS unit FROM e
        UNION ALL SELECT ${K64_SQL(`'p:' || ${HASH_KEY_SQL('phone_sha256')}`)}, person_key, ${KIND.phone}, NULL FROM g.phones
        UNION ALL SELECT ${K64_SQL(`'a:' || akey`)}, person_key, CASE WHEN is_current THEN ${KIND.address} ELSE ${KIND.addressHistory} END, unit
          FROM addr WHERE akey IS NOT NULL
        -- Surname + each ZIP of the person's addresses, and of its own ZIP (an imported person may have a ZIP without a street).
        UNION ALL SELECT DISTINCT ${K64_SQL(`'n:' || last_name || '|' || zip5`)}, person_key, ${KIND.nameZip}, NULL
          FROM (SELECT p.person_key, p.last_name, a.zip5 FROM g.persons p JOIN addr a USING (person_key)
                UNION SELECT person_key, last_name, zip5 FROM g.persons) WHERE last_name IS NOT NULL AND zip5 IS NOT NULL
        UNION ALL SELECT ${K64_SQL(`'d:' || strftime(dob, '%Y-%m-%d') || '|' || n`)}, person_key, ${KIND.dob}, NULL
          FROM (SELECT person_key, dob, unnest([first_name, last_name]) AS n FROM g.persons WHERE dob IS NOT NULL) WHERE n IS NOT NULL
        UNION ALL SELECT ${K64_SQL(`'st:' || street`)}, person_key, ${KIND.street}, unit FROM street_anchor
        UNION ALL SELECT k, person_key, kind, unit FROM common_capped)
      SELECT * FROM keys ORDER BY k`,
    );
    // The street keys again, alone: the file path joins a file's street keys against this small table
    // instead of scanning m_key a second time.
    await run(`CREATE TABLE m_street AS SELECT ${K64_SQL(`'st:' || street`)} AS k, person_key, unit FROM street_anchor ORDER BY k`);
    // house: the leading number of the current address in the person's ZIP (keys.ts houseNumberOf), for the `house`
    // address level (the row's house number and ZIP agree, its street is spelled otherwise).
    await createPointFetchTable(
      'm_person',
      `
      SELECT p.person_key, p.household_key, min(p.person_key) OVER (PARTITION BY p.household_key) AS hh_ref,
        p.first_name, p.middle_name, p.last_name, s.sx AS last_sx, p.nickname, p.dob, p.zip5, p.work_zip5, h.house
      FROM g.persons p LEFT JOIN surname_sx s USING (last_name)
      LEFT JOIN (SELECT person_key, zip5, min(nullif(regexp_extract(split_part(akey, '|', 1), '^[0-9]+'), '')) AS house FROM addr
                 WHERE is_current AND akey IS NOT NULL AND NOT starts_with(akey, 'POBOX|') GROUP BY person_key, zip5) h
        ON h.person_key = p.person_key AND h.zip5 = p.zip5
      ORDER BY p.person_key`,
    );
    // Enrichment attributes of matched persons (POST /v1/match): every persons column in key order with an
    // ART on person_key (an index scan), low-cardinality columns dictionary-coded and packed into 64-bit
    // words, so a read fetches a few words instead of 26 columns (attr-pack.ts).
    await createPackedAttrs(run, async (sql) => (await c.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[], 'g.persons');
    await run(`CREATE TABLE m_work_anchor AS
      SELECT work_zip5 AS zip5, arg_min(person_key, hash(person_key)) AS person_key, arg_min(household_key, hash(person_key)) AS household_key
      FROM g.persons WHERE work_zip5 IS NOT NULL GROUP BY work_zip5 ORDER BY zip5`);
    await run(`CREATE TABLE m_meta AS SELECT ${MATCH_INDEX_VERSION} AS version, ${lit(path.basename(releaseFile))} AS release_file, now() AS built_at,
      ${K64_SQL(lit(K64_PROBE))} AS k64_probe`);
    if (o.artIndexes !== false) {
      await run('CREATE INDEX m_key_k ON m_key (k)');
      await run('CREATE INDEX m_person_pk ON m_person (person_key)');
      await run('CREATE INDEX m_attr_pk ON m_attr (person_key)');
    }
    await run('DETACH g');
    await run('CHECKPOINT');
    c.closeSync();
    inst.closeSync();
  } catch (err) {
    try {
      c.closeSync();
      inst.closeSync();
    } catch {
      /* keep the original error */
    }
    fs.rmSync(tmp, { force: true });
    fs.rmSync(`${tmp}.wal`, { force: true });
    throw err;
  }
  // Write-once: a concurrent builder may have won the race; its file is as good as ours.
  if (fs.existsSync(target)) fs.rmSync(tmp, { force: true });
  else fs.renameSync(tmp, target);
  return target;
}
