/**
 * Issue #15's mixed file: graph persons with mixed fields (name always; email half the rows, phone 40%; a third
 * with street address + ZIP, a third ZIP only, a third no geography; dob half), 10% strangers (a made-up surname
 * and email). Each field is on or off by an independent hash of the row number. A COPY statement for a DuckDB
 * connection with the release attached as `g`; bench/file-match.ts --mixed and bench/match-candidates.ts use it.
 */
import { lit } from '../../src/graph/duck.ts';

const on = (salt: number, mod: number, lt: number) => `hash(i, ${salt}) % ${mod} < ${lt}`;

export function mixedFileSql(g: string, rows: number, csv: string): string {
  return `COPY (
      WITH p AS (SELECT p.first_name, p.last_name, p.address_1, p.address_2, p.city, p.state, p.zip5, strftime(p.dob, '%Y-%m-%d') AS dob,
                        (SELECT min(email) FROM ${g}.emails e WHERE e.person_key = p.person_key) AS email,
                        (SELECT min(phone) FROM ${g}.phones f WHERE f.person_key = p.person_key) AS phone,
                        row_number() OVER () AS k FROM ${g}.persons p USING SAMPLE reservoir(${Math.ceil(rows * 0.9)} ROWS) REPEATABLE (42)),
           n AS (SELECT count(*) AS c FROM p)
      SELECT 'r' || i AS row_id, p.first_name, CASE WHEN i % 10 = 0 THEN 'Qqzx' || i ELSE p.last_name END AS last_name,
        CASE WHEN NOT ${on(1, 2, 1)} THEN NULL WHEN i % 10 = 0 THEN 'nobody' || i || '@example.invalid' ELSE p.email END AS email,
        CASE WHEN ${on(2, 5, 2)} THEN p.phone END AS phone,
        CASE WHEN ${on(3, 3, 1)} THEN p.address_1 END AS address_1, CASE WHEN ${on(3, 3, 1)} THEN p.address_2 END AS address_2,
        CASE WHEN ${on(3, 3, 1)} THEN p.city END AS city, CASE WHEN ${on(3, 3, 1)} THEN p.state END AS state,
        CASE WHEN ${on(3, 3, 2)} THEN p.zip5 END AS zip,
        CASE WHEN ${on(4, 2, 1)} THEN p.dob END AS dob
      FROM range(${rows}) r(i), n JOIN p ON p.k = (i % n.c) + 1
    ) TO ${lit(csv)} (HEADER)`;
}
