/**
 * Which enrichment fields a matched row may carry, by what the match rests on (decision 051,
 * docs/decisions/051-enrichment-by-match-level.md). The one rule for every surface: POST /v1/match
 * (and so MCP `match_records` and A2A, which run its operation), integration runs, and deliveries
 * of matched audiences (the export engine applies it per row through `ExportField.matchBases`).
 *
 * The basis of a row is its match level, except a direct refresh by iag_person_id (`person_id`),
 * which is `refresh`: the caller gave an id, not an identity, so no identity field comes back.
 * Only ids issued by an I match refresh at all (service.ts); ids issued at H, D, S or A fall back.
 */
import type { CatalogField } from '../../graph/index.ts';
import type { MatchLevel, MatchType } from '../../identity/matcher/index.ts';

export type DisclosureBasis = MatchLevel | 'refresh';
export const DISCLOSURE_BASES: readonly DisclosureBasis[] = ['I', 'refresh', 'H', 'D', 'S', 'A'];

export function disclosureBasis(level: MatchLevel, type: MatchType | null): DisclosureBasis {
  return type === 'person_id' ? 'refresh' : level;
}

/** I and a refresh of an I-issued id: the caller identified this person. */
const PERSON: readonly DisclosureBasis[] = ['I', 'refresh'];
/** The place: the caller gave the address (A), a nearby one on the same street (S) or a household member (H). */
const PLACE: readonly DisclosureBasis[] = [...PERSON, 'H', 'S', 'A'];
/** The household the caller identified (H), not a resident picked by address alone. */
const HOUSEHOLD: readonly DisclosureBasis[] = [...PERSON, 'H'];
/** Coarse traits of the owner of the email or phone the caller holds (D). */
const DIGITAL: readonly DisclosureBasis[] = [...PERSON, 'D'];

/**
 * Non-identity fields below I. A field missing here (exact values: age, household_income, home_value,
 * moved_in; work places; any field added to the catalog later) is carried at I and refresh only.
 */
const BELOW_I: Readonly<Record<string, readonly DisclosureBasis[]>> = {
  city: PLACE,
  zip5: PLACE,
  dwelling_type: PLACE,
  homeowner: PLACE,
  state: [...PLACE, 'D'],
  zip3: [...PLACE, 'D'],
  household_size: HOUSEHOLD,
  presence_of_children: HOUSEHOLD,
  length_of_residence: HOUSEHOLD,
  income_band: HOUSEHOLD,
  net_worth_band: HOUSEHOLD,
  gender: DIGITAL,
  education: DIGITAL,
  marital_status: DIGITAL,
  occupation_group: DIGITAL,
  has_email: DIGITAL,
  has_phone: DIGITAL,
  interests: DIGITAL,
  purchase_behaviors: DIGITAL,
};

/** The bases whose rows may carry `field`. Identity (PII) fields: an I match of the caller's own input only. */
export function basesAllowing(field: Pick<CatalogField, 'name' | 'pii'>): readonly DisclosureBasis[] {
  if (field.pii) return ['I'];
  return BELOW_I[field.name] ?? PERSON;
}

/** The fields a row of this basis may carry, and those withheld from it (identity and by level, apart). */
export function disclose(
  attrs: Record<string, unknown>,
  fields: readonly CatalogField[],
  basis: DisclosureBasis,
): {
  attrs: Record<string, unknown>;
  withheldIdentity: string[];
  withheldByLevel: string[];
} {
  const shown: Record<string, unknown> = {};
  const withheldIdentity: string[] = [];
  const withheldByLevel: string[] = [];
  for (const f of fields) {
    if (basesAllowing(f).includes(basis)) shown[f.name] = attrs[f.name] ?? null;
    else (f.pii ? withheldIdentity : withheldByLevel).push(f.name);
  }
  return { attrs: shown, withheldIdentity, withheldByLevel };
}
