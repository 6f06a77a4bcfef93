/**
 * Request and response schemas of POST /v1/match. Input record fields are declared for the docs but
 * typed loosely (`unknown`): a wrongly typed value is one bad value, reported on its row by the
 * normalizer, never a 400 for the whole batch (spec 4.5). The response schema whitelists every field,
 * so nothing the caller did not ask for can reach the wire.
 */
import { Type, type Static } from 'typebox';
import { Nullable, DateTime } from '../../core/schema.ts';
import { CATALOG_FIELDS } from '../catalog/index.ts';

export const MAX_RECORDS = 100;

/** Input attributes echoed back unchanged (spec 2, Match input record; `row_id` and `iag_person_id` are output fields). */
export const ECHO_FIELDS = [
  'email',
  'phone',
  'email_sha256',
  'phone_sha256',
  'full_name',
  'first_name',
  'middle_name',
  'last_name',
  'name_suffix',
  'emails',
  'phones',
  'emails_sha256',
  'phones_sha256',
  'addresses',
  'address_1',
  'address_2',
  'city',
  'state',
  'zip',
  'dob',
] as const;
export const INPUT_FIELDS = new Set<string>([...ECHO_FIELDS, 'row_id', 'iag_person_id']);

const loose = (description: string) => Type.Optional(Type.Unknown({ description }));

const inputProps = {
  row_id: loose('Correlation id: at least one non-whitespace character, unique in the request; default the 1-indexed position'),
  email: loose('Email address'),
  phone: loose('Phone number (US default country)'),
  email_sha256: loose('Lowercase-hex SHA-256 of the normalized email'),
  phone_sha256: loose('Lowercase-hex SHA-256 of the normalized phone'),
  full_name: loose('Parsed into first/middle/last/suffix when those are absent'),
  first_name: loose('First name'),
  middle_name: loose('Middle name'),
  last_name: loose('Last name'),
  name_suffix: loose('JR, SR, II, ...'),
  emails: loose('Array of extra emails'),
  phones: loose('Array of extra phones'),
  emails_sha256: loose('Array of extra email hashes'),
  phones_sha256: loose('Array of extra phone hashes'),
  addresses: loose('Array of {address_1, address_2, city, state, zip (aliases zip5, postal_code, zip_code)}'),
  address_1: loose('Street line'),
  address_2: loose('Unit'),
  city: loose('City'),
  state: loose('Two-letter state code'),
  zip: loose('5 or 9 digit ZIP'),
  dob: loose('Date of birth, any parseable date'),
  iag_person_id: loose(
    'A tier-01 id previously issued to this organization: matched directly (refresh); anything else falls back to the other fields',
  ),
};

export const MatchInputRecordSchema = Type.Object(inputProps, {
  additionalProperties: true,
  description: 'Match input record; all fields optional. Unknown properties are ignored (reported as a row warning).',
});

export const MatchLevelSchema = Type.Union([Type.Literal('I'), Type.Literal('H'), Type.Literal('D'), Type.Literal('S'), Type.Literal('A')]);

export const MatchBody = Type.Object(
  {
    records: Type.Array(MatchInputRecordSchema, { minItems: 1, description: `1 to ${MAX_RECORDS} records (more: 400 TOO_MANY_RECORDS)` }),
    field_list: Type.Optional(
      Type.Array(Type.String(), { maxItems: 200, description: 'Catalog attribute names (or aliases) to return for matched rows' }),
    ),
    template_id: Type.Optional(
      Type.Union([Type.Literal('standard_iag'), Type.Literal('standard_enrichment')], {
        description: 'standard_iag: identity and postal address (PII); standard_enrichment: demographics (the default)',
      }),
    ),
    match_level: Type.Optional(Type.Array(MatchLevelSchema, { minItems: 1, description: 'Levels allowed (default all five)' })),
    spatial_mode: Type.Optional(
      Type.Union([Type.Literal('residential'), Type.Literal('work'), Type.Literal('auto')], { default: 'residential' }),
    ),
    create_scratch_segment: Type.Optional(Type.Boolean({ default: false })),
  },
  { additionalProperties: false },
);

const WarningSchema = Type.Object({ field: Type.String(), code: Type.String(), message: Type.String() });

/** Names a match record already uses for its own fields and the echoed inputs. */
const RECORD_FIELDS = new Set<string>([
  ...ECHO_FIELDS,
  'row_id',
  'iag_person_id',
  'match_level',
  'match_type',
  'match_confidence',
  'warnings',
]);
/** Prefix of an enrichment attribute whose catalog name is also an input name (the input echo keeps the plain name). */
export const ENRICHED_PREFIX = 'enriched_';
/** The key an enrichment attribute takes in a match record (spec 2: added beside the echoed inputs). */
export const enrichmentKey = (field: string) => (RECORD_FIELDS.has(field) ? `${ENRICHED_PREFIX}${field}` : field);

const enrichmentProps = Object.fromEntries(
  CATALOG_FIELDS.map((f) => [
    enrichmentKey(f.name),
    Type.Optional(
      Type.Unknown({
        description: `${f.description} (enrichment${enrichmentKey(f.name) !== f.name ? `; \`${f.name}\` is the echoed input` : ''})`,
      }),
    ),
  ]),
);

export const MatchRecordSchema = Type.Object(
  {
    row_id: Type.String(),
    iag_person_id: Nullable(
      Type.String({ description: 'Tier 01 for a graph match; a tier 02-05 continuity label or null when unmatched' }),
    ),
    match_level: Nullable(MatchLevelSchema),
    match_type: Nullable(Type.String()),
    match_confidence: Nullable(Type.Number()),
    ...Object.fromEntries(ECHO_FIELDS.map((f) => [f, Type.Optional(Type.Unknown({ description: 'Echoed input' }))])),
    ...enrichmentProps,
    warnings: Type.Array(WarningSchema),
  },
  {
    description:
      'One per input record: the echoed inputs plus the selected enrichment attributes of the matched person (matched rows only; ' +
      `identity fields at level I only). An attribute whose catalog name is also an input name is returned as ${ENRICHED_PREFIX}<name>.`,
  },
);

const ScratchSegmentSchema = Type.Object({
  segment_id: Type.String(),
  name: Type.String(),
  subtype: Type.String({ description: 'Always matched' }),
  status: Type.String(),
  record_count: Nullable(Type.Integer()),
  input_record_count: Nullable(Type.Integer()),
  match_count: Nullable(Type.Integer()),
  ephemeral: Type.Boolean(),
  expires_at: DateTime('24 hours (hour-granular) after creation'),
});

export const MatchResponseSchema = Type.Object({
  records: Type.Array(MatchRecordSchema),
  match_count: Type.Integer(),
  record_count: Type.Integer(),
  amount_charged: Type.Number({ description: 'USD: matched records times the per-record rate of the contract tier' }),
  data_release: Type.Object({ major: Type.Integer(), minor: Type.Integer() }),
  scratch_segment: Nullable(ScratchSegmentSchema),
});

export type MatchInput = Static<typeof MatchBody>;
export type MatchResponse = Static<typeof MatchResponseSchema>;
