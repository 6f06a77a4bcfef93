/**
 * Column analysis (spec 4.5): header names first, then the sampled values decide. Rules that matter:
 * a column of 64-hex values is never raw email/phone (it is email_sha256 / phone_sha256 by its header,
 * or not mapped); full_name only when no separate name columns exist; an `addresses` column is checked
 * for the nested shape (array of objects with address_1).
 */
export const STANDARD_ATTRIBUTES = [
  'row_id',
  'email',
  'phone',
  'email_sha256',
  'phone_sha256',
  'full_name',
  'first_name',
  'middle_name',
  'last_name',
  'name_suffix',
  'address_1',
  'address_2',
  'city',
  'state',
  'zip',
  'dob',
  'iag_person_id',
  'emails',
  'phones',
  'emails_sha256',
  'phones_sha256',
  'addresses',
] as const;
export type StandardAttribute = (typeof STANDARD_ATTRIBUTES)[number];
export const SKIP = '(skip)';

const norm = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '');

/** Exact names (confidence 0.95) and common aliases (0.85), compared without case and punctuation. */
const NAMES: Record<StandardAttribute, string[]> = {
  row_id: ['row_id', 'rowid'],
  email: ['email', 'email_address', 'e_mail', 'mail'],
  phone: ['phone', 'phone_number', 'mobile', 'cell', 'telephone', 'tel'],
  email_sha256: ['email_sha256', 'sha256_email', 'hashed_email', 'email_hash'],
  phone_sha256: ['phone_sha256', 'sha256_phone', 'hashed_phone', 'phone_hash'],
  full_name: ['full_name', 'name', 'fullname', 'customer_name'],
  first_name: ['first_name', 'fname', 'first', 'given_name', 'firstname'],
  middle_name: ['middle_name', 'mname', 'middle', 'middle_initial'],
  last_name: ['last_name', 'lname', 'last', 'surname', 'family_name'],
  name_suffix: ['name_suffix', 'suffix'],
  address_1: ['address_1', 'address', 'address1', 'street', 'street_address', 'addr1', 'address_line_1'],
  address_2: ['address_2', 'address2', 'addr2', 'unit', 'apt', 'address_line_2'],
  city: ['city', 'town'],
  state: ['state', 'st', 'state_code', 'region'],
  zip: ['zip', 'zip5', 'postal_code', 'zip_code', 'zipcode', 'postcode'],
  dob: ['dob', 'date_of_birth', 'birthdate', 'birth_date', 'birthday'],
  iag_person_id: ['iag_person_id', 'person_id'],
  emails: ['emails', 'email_list'],
  phones: ['phones', 'phone_list'],
  emails_sha256: ['emails_sha256'],
  phones_sha256: ['phones_sha256'],
  addresses: ['addresses', 'address_list'],
};
const BY_NAME = new Map<string, { attr: StandardAttribute; exact: boolean }>();
for (const [attr, names] of Object.entries(NAMES) as [StandardAttribute, string[]][]) {
  names.forEach((n, i) => {
    if (!BY_NAME.has(norm(n))) BY_NAME.set(norm(n), { attr, exact: i === 0 });
  });
}

export interface ColumnAnalysis {
  source_column: string;
  mapped_to: string | null;
  inferred_type: string;
  confidence: number;
  warning: string | null;
}

export interface MappingWarning {
  column: string;
  source: 'analysis' | 'nested_addresses';
  message: string;
}

export interface Analysis {
  columns: ColumnAnalysis[];
  unmapped_columns: string[];
  recommendations: string[];
  /** source column -> standard attribute (mapped columns only). */
  column_mappings: Record<string, string>;
  mapping_warnings: MappingWarning[];
  usable: boolean;
}

const HEX64 = /^[0-9a-f]{64}$/;
const HEX64_ANY = /^[0-9a-fA-F]{64}$/;

function valueType(values: unknown[]): string {
  const present = values.filter((v) => v !== null && v !== undefined && !(typeof v === 'string' && v.trim() === ''));
  if (!present.length) return 'empty';
  const all = (p: (v: unknown) => boolean) => present.every(p);
  if (all((v) => Array.isArray(v)))
    return present.some((v) => (v as unknown[]).some((e) => e && typeof e === 'object')) ? 'object_array' : 'array';
  if (all((v) => typeof v === 'string' && HEX64_ANY.test(v.trim()))) return 'sha256';
  if (all((v) => typeof v === 'string' && /^\s*\[/.test(v))) return 'json_array_text';
  const str = present.map((v) => String(v).trim());
  const share = (re: RegExp) => str.filter((s) => re.test(s)).length / str.length;
  if (share(/^[^@\s]+@[^@\s]+\.[^@\s]+$/) >= 0.8) return 'email';
  if (share(/^\d{5}(-?\d{4})?$/) >= 0.8) return 'zip';
  if (share(/^\+?[\d\s().-]{10,16}$/) >= 0.8 && share(/\d{3}.*\d{3}.*\d{4}/) >= 0.8) return 'phone';
  if (share(/^\d{4}-\d{2}-\d{2}$|^\d{1,2}\/\d{1,2}\/\d{2,4}$/) >= 0.8) return 'date';
  if (share(/^[A-Za-z]{2}$/) >= 0.8) return 'state_code';
  if (share(/^\d+\s+\S+/) >= 0.6) return 'street';
  return 'string';
}

/** Nested addresses check: an array of objects each carrying address_1. */
function addressesProblem(values: unknown[]): string | null {
  for (const raw of values) {
    if (raw === null || raw === undefined || raw === '') continue;
    let v = raw;
    if (typeof v === 'string') {
      try {
        v = JSON.parse(v);
      } catch {
        return 'addresses values are not a JSON array of address objects';
      }
    }
    if (!Array.isArray(v)) return 'addresses must be an array of address objects';
    for (const e of v) {
      if (!e || typeof e !== 'object' || Array.isArray(e))
        return 'addresses entries must be objects {address_1, address_2, city, state, zip}';
      const a1 = (e as Record<string, unknown>).address_1;
      if (typeof a1 !== 'string' || !a1.trim())
        return 'an addresses entry lacks address_1 (include it in every entry); such entries are ignored';
    }
  }
  return null;
}

const IDENTITY: StandardAttribute[] = [
  'email',
  'phone',
  'email_sha256',
  'phone_sha256',
  'emails',
  'phones',
  'emails_sha256',
  'phones_sha256',
  'iag_person_id',
  'full_name',
  'last_name',
  'address_1',
  'addresses',
];

export function analyzeColumns(header: string[], rows: Record<string, unknown>[]): Analysis {
  const columns: ColumnAnalysis[] = [];
  const warnings: MappingWarning[] = [];
  const recommendations: string[] = [];
  const taken = new Set<string>();
  for (const col of header) {
    const values = rows.map((r) => r[col]);
    const type = valueType(values);
    const named = BY_NAME.get(norm(col));
    let mapped: string | null = named?.attr ?? null;
    let confidence = named ? (named.exact ? 0.95 : 0.85) : 0;
    let warning: string | null = null;
    if (type === 'sha256') {
      const lower = values.every((v) => v === null || v === undefined || v === '' || HEX64.test(String(v).trim()));
      // Never a raw email/phone: a hashed column maps to its *_sha256 attribute when the header says which.
      if (mapped === 'email' || mapped === 'email_sha256' || /email/i.test(col)) mapped = 'email_sha256';
      else if (mapped === 'phone' || mapped === 'phone_sha256' || /phone/i.test(col)) mapped = 'phone_sha256';
      else {
        mapped = null;
        warning = 'Column holds 64-hex SHA-256 values; name it email_sha256 or phone_sha256 to use it.';
      }
      if (mapped && !lower) {
        confidence = 0.5;
        warning = 'SHA-256 values should be lowercase hex of the normalized value; matched as given (lower-cased).';
      } else if (mapped && named?.attr !== mapped) {
        confidence = 0.8;
        warning = `Values are SHA-256 hashes: mapped to ${mapped}, not to raw ${named?.attr ?? 'email/phone'}.`;
      }
    } else if (mapped === 'email_sha256' || mapped === 'phone_sha256') {
      if (type !== 'empty') {
        mapped = null;
        warning = 'Header names a SHA-256 column, but the values are not 64-hex hashes; not mapped.';
      }
    } else if (!mapped) {
      // Header unknown: infer from values, with low confidence (below 0.6 is uncertain).
      const guess: Record<string, StandardAttribute> = { email: 'email', phone: 'phone', zip: 'zip', date: 'dob' };
      if (guess[type]) {
        mapped = guess[type]!;
        confidence = 0.55;
        warning = `Mapped to ${mapped} from the values only; confirm or skip.`;
      }
    } else if (
      (mapped === 'email' && type !== 'email' && type !== 'empty') ||
      (mapped === 'phone' && !['phone', 'empty', 'string', 'zip'].includes(type))
    ) {
      confidence = 0.5;
      warning = `Values do not look like ${mapped} (${type}).`;
    }
    if (mapped === 'addresses') {
      const problem = addressesProblem(values);
      if (problem) {
        warning = problem;
        confidence = Math.min(confidence, 0.5);
        warnings.push({ column: col, source: 'nested_addresses', message: problem });
      }
    }
    if (mapped && taken.has(mapped)) {
      warning = `Another column already maps to ${mapped}; this one is not used.`;
      mapped = null;
    }
    if (mapped) taken.add(mapped);
    columns.push({ source_column: col, mapped_to: mapped, inferred_type: type, confidence: mapped ? confidence : 0, warning });
  }
  // full_name only when it is the one combined-name column (spec 4.5).
  if (taken.has('full_name') && (taken.has('first_name') || taken.has('last_name'))) {
    const c = columns.find((x) => x.mapped_to === 'full_name')!;
    c.mapped_to = null;
    c.confidence = 0;
    c.warning = 'Separate first/last name columns exist; the combined name column is not used.';
    taken.delete('full_name');
  }
  for (const c of columns) {
    if (c.mapped_to && c.confidence < 0.6 && !warnings.some((w) => w.column === c.source_column)) {
      warnings.push({ column: c.source_column, source: 'analysis', message: c.warning ?? `Low-confidence mapping to ${c.mapped_to}.` });
    }
  }
  const usable = IDENTITY.some((a) => taken.has(a));
  if (!usable)
    recommendations.push('No identity column was recognized: include email, phone, a name with an address, or their SHA-256 hashes.');
  if (!taken.has('email') && !taken.has('email_sha256') && !taken.has('emails'))
    recommendations.push('Adding an email column (or email_sha256) raises the match rate.');
  if ((taken.has('last_name') || taken.has('full_name')) && !taken.has('zip') && !taken.has('address_1'))
    recommendations.push('Names match best with a street address and ZIP code.');
  if (columns.some((c) => c.warning && c.mapped_to === null))
    recommendations.push('Review the unmapped columns; confirm or adjust with POST /v1/segments/{id}/mappings.');
  const column_mappings = Object.fromEntries(columns.filter((c) => c.mapped_to).map((c) => [c.source_column, c.mapped_to!]));
  return {
    columns,
    unmapped_columns: columns.filter((c) => !c.mapped_to).map((c) => c.source_column),
    recommendations,
    column_mappings,
    mapping_warnings: warnings,
    usable,
  };
}

/** Whether a confirmed mapping still names an identity attribute. */
export const mappingUsable = (m: Record<string, string>) => Object.values(m).some((a) => (IDENTITY as string[]).includes(a));
