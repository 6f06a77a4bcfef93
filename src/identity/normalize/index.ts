/** Public surface of the identity normalizers. */
export * from './types.ts';
export { sha256Hex, normalizeSha256 } from './hash.ts';
export { normalizeEmail, emailMatchKey, emailSha256 } from './email.ts';
export { normalizePhone, phoneSha256 } from './phone.ts';
export { foldToAsciiUpper } from './text.ts';
export { canonicalName } from './name.ts';
export { parseFullName, normalizeNameSuffix, type ParsedName } from './full-name.ts';
export { canonicalGivenNames, nameVariants, areNicknameEquivalent } from './nickname.ts';
export { normalizeState, STATE_CODES } from './state.ts';
export { normalizeZip, type Zip } from './zip.ts';
export { parseDob, type Dob } from './dob.ts';
export {
  normalizeAddress,
  normalizeCity,
  addressKey,
  type AddressInput,
  type NormalizedAddress,
  type AddressIssue,
  type AddressResult,
  type AddressKey,
} from './address/address.ts';
export { addressesFromInput, type SourcedAddressInput } from './address/input.ts';
export { parseStreetLine, parseUnitLine, poBoxNumber, type StreetLine } from './address/street.ts';
export type { Unit } from './address/unit.ts';
export {
  normalizeMatchInput,
  iagPersonIdOf,
  type NormalizedRecord,
  type NormalizedEmail,
  type NormalizedPhone,
  type NameParts,
  type NormalizeOptions,
} from './record.ts';
