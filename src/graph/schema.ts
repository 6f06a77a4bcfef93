/**
 * Table layout of a release file. Generator, importer and release builders all create tables from
 * these definitions and fill them with `INSERT ... BY NAME`, so every release has the same columns
 * whatever produced it (an imported graph has NULLs where the operator's file had nothing).
 */

export const PERSON_COLUMNS = {
  person_key: 'BIGINT NOT NULL',
  household_key: 'BIGINT',
  first_name: 'VARCHAR',
  middle_name: 'VARCHAR',
  last_name: 'VARCHAR',
  name_suffix: 'VARCHAR',
  nickname: 'VARCHAR',
  gender: 'VARCHAR',
  dob: 'DATE',
  age: 'INTEGER',
  address_1: 'VARCHAR',
  address_2: 'VARCHAR',
  city: 'VARCHAR',
  state: 'VARCHAR',
  zip5: 'VARCHAR',
  zip3: 'VARCHAR',
  lat: 'DOUBLE',
  lon: 'DOUBLE',
  moved_in: 'DATE',
  length_of_residence: 'INTEGER',
  work_address_1: 'VARCHAR',
  work_address_2: 'VARCHAR',
  work_city: 'VARCHAR',
  work_state: 'VARCHAR',
  work_zip5: 'VARCHAR',
  household_size: 'INTEGER',
  presence_of_children: 'BOOLEAN',
  dwelling_type: 'VARCHAR',
  homeowner: 'BOOLEAN',
  home_value: 'INTEGER',
  household_income: 'INTEGER',
  income_band: 'VARCHAR',
  net_worth_band: 'VARCHAR',
  education: 'VARCHAR',
  marital_status: 'VARCHAR',
  occupation_group: 'VARCHAR',
  has_email: 'BOOLEAN',
  has_phone: 'BOOLEAN',
  interests_mask: 'BIGINT NOT NULL DEFAULT 0',
  purchase_behaviors_mask: 'BIGINT NOT NULL DEFAULT 0',
} as const;

export type PersonColumn = keyof typeof PERSON_COLUMNS;

const TABLES: Record<string, Record<string, string>> = {
  persons: PERSON_COLUMNS,
  emails: { person_key: 'BIGINT NOT NULL', email: 'VARCHAR NOT NULL', email_sha256: 'VARCHAR NOT NULL', kind: 'VARCHAR' },
  phones: { person_key: 'BIGINT NOT NULL', phone: 'VARCHAR NOT NULL', phone_sha256: 'VARCHAR NOT NULL', kind: 'VARCHAR' },
  addresses: {
    person_key: 'BIGINT NOT NULL',
    address_1: 'VARCHAR',
    address_2: 'VARCHAR',
    city: 'VARCHAR',
    state: 'VARCHAR',
    zip5: 'VARCHAR',
    zip3: 'VARCHAR',
    lat: 'DOUBLE',
    lon: 'DOUBLE',
    is_current: 'BOOLEAN NOT NULL',
    moved_in: 'DATE',
    moved_out: 'DATE',
  },
  households: {
    household_key: 'BIGINT NOT NULL',
    household_size: 'INTEGER',
    address_1: 'VARCHAR',
    address_2: 'VARCHAR',
    city: 'VARCHAR',
    state: 'VARCHAR',
    zip5: 'VARCHAR',
    presence_of_children: 'BOOLEAN',
    homeowner: 'BOOLEAN',
    home_value: 'INTEGER',
    household_income: 'INTEGER',
    income_band: 'VARCHAR',
  },
  release_meta: {
    major: 'INTEGER NOT NULL',
    minor: 'INTEGER NOT NULL',
    release_date: 'DATE NOT NULL',
    created_at: 'TIMESTAMP NOT NULL',
    source: 'VARCHAR NOT NULL',
    seed: 'BIGINT',
    persons: 'BIGINT NOT NULL',
  },
};

export function createTableSql(table: keyof typeof TABLES | string): string {
  const cols = TABLES[table];
  if (!cols) throw new Error(`unknown release table ${table}`);
  return `CREATE TABLE ${table} (${Object.entries(cols)
    .map(([c, t]) => `${c} ${t}`)
    .join(', ')})`;
}

export const RELEASE_TABLES = Object.keys(TABLES);

/** The households table is derived from persons, so every producer fills it the same way. */
export const FILL_HOUSEHOLDS_SQL = `
  INSERT INTO households BY NAME
  SELECT household_key, count(*)::INT AS household_size,
         arg_min(address_1, person_key) AS address_1, arg_min(address_2, person_key) AS address_2,
         arg_min(city, person_key) AS city, arg_min(state, person_key) AS state, arg_min(zip5, person_key) AS zip5,
         bool_or(age < 18) AS presence_of_children, bool_or(homeowner) AS homeowner, max(home_value) AS home_value,
         max(household_income) AS household_income, arg_min(income_band, person_key) AS income_band
  FROM persons WHERE household_key IS NOT NULL GROUP BY household_key ORDER BY household_key`;
