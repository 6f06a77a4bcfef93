/**
 * Delivery-line parsing into USPS Publication 28 parts:
 * house number, pre-directional, street name, suffix, post-directional, unit; or a PO box.
 */
import { loadStreetSuffixes, type RefDir } from '../../reference-data.ts';
import { foldToAsciiUpper } from '../text.ts';
import { directionalAt, numberOrdinals } from './words.ts';
import { designator, isStrongDesignator, looksLikeRange, parseUnitTokens, type Unit } from './unit.ts';

export interface StreetLine {
  houseNumber: string | null;
  preDirectional: string | null;
  streetName: string | null;
  streetSuffix: string | null;
  postDirectional: string | null;
  poBox: string | null;
  unit: Unit | null;
  /** Standardized delivery line without the unit: "123 N MAIN ST" or "PO BOX 12". */
  line: string;
}

/** Upper-case ASCII tokens; periods dropped ("N." -> "N"), '#' split off, '-' kept in numbers. */
export function streetTokens(raw: string): string[] {
  return foldToAsciiUpper(raw)
    .replace(/\./g, '')
    .replace(/#/g, ' # ')
    .replace(/([A-Z])-(?=[A-Z])/g, '$1 ') // TWENTY-FIFTH -> TWENTY FIFTH
    .replace(/[^A-Z0-9#/ -]+/g, ' ')
    .replace(/(^| )-+|-+(?= |$)/g, ' ') // stray dashes, keep 123-45 and 4-B
    .split(' ')
    .filter((t) => t !== '')
    .flatMap(splitGluedUnit);
}

/** "APT4B" -> ["APT", "4B"], but only for real designators so "N123W456" stays whole. */
function splitGluedUnit(token: string): string[] {
  const m = /^([A-Z]{2,})(\d[A-Z0-9-]*)$/.exec(token);
  if (m && designator(m[1]!)) return [m[1]!, m[2]!];
  return [token];
}

const PO_BOX =
  /^(?:P ?O ?B(?:OX)?|POST ?OFFICE(?: ?BOX)?|POST ?BOX|P ?O|BOX|LOCK ?BOX|CALLER ?BOX)(?: (?:NO|NUMBER))? ?#? ?([A-Z]?\d[A-Z0-9-]*)$/;

/** "P.O. Box 12", "POB 12", "Post Office Box 12", "Box #12" -> "12". */
export function poBoxNumber(raw: string): string | null {
  return poBoxOfTokens(streetTokens(raw));
}

const poBoxOfTokens = (toks: readonly string[]) => PO_BOX.exec(toks.join(' '))?.[1] ?? null;

const HOUSE = /^(?:\d+[A-Z]?|\d+-\d+[A-Z]?|\d+[A-Z]?-[A-Z0-9]+|[NSEW]\d+[NSEW]\d+)$/;

export function parseStreetLine(raw: string, dir?: RefDir): StreetLine {
  const empty: StreetLine = {
    houseNumber: null,
    preDirectional: null,
    streetName: null,
    streetSuffix: null,
    postDirectional: null,
    poBox: null,
    unit: null,
    line: '',
  };
  let toks = streetTokens(raw);
  const box = poBoxOfTokens(toks);
  if (box) return { ...empty, poBox: box, line: `PO BOX ${box}` };

  const suffixes = loadStreetSuffixes(dir);
  if (toks.length === 0) return empty;

  let houseNumber: string | null = null;
  if (HOUSE.test(toks[0]!) && !/^\d+(ST|ND|RD|TH)$/.test(toks[0]!) && toks.length > 1) {
    houseNumber = toks[0]!;
    toks = toks.slice(1);
    if (/^\d\/\d{1,2}$/.test(toks[0] ?? '') && toks.length > 1) {
      houseNumber += ` ${toks[0]}`; // "123 1/2 MAIN ST"
      toks = toks.slice(1);
    }
  }

  // Unit inside the line: the first designator after at least one street word.
  let unit: Unit | null = null;
  for (let i = 1; i < toks.length; i++) {
    const d = designator(toks[i]!, dir);
    if (!d) continue;
    const prev = toks[i - 1]!;
    const afterStreetWord = suffixes.has(prev) || directionalAt(toks, i - 1) !== null;
    const hasRange = looksLikeRange(toks[i + 1] === '#' ? toks[i + 2] : toks[i + 1]);
    if (!isStrongDesignator(d.abbr) && !afterStreetWord) continue;
    if (d.requiresRange && !hasRange) continue;
    if (!d.requiresRange && !hasRange && i !== toks.length - 1) continue;
    const parsed = parseUnitTokens(toks.slice(i), dir);
    if (parsed) {
      unit = parsed;
      toks = toks.slice(0, i);
      break;
    }
  }

  // Post-directional: last word, with a street word before it.
  let postDirectional: string | null = null;
  if (toks.length >= 2) {
    const two = toks.length >= 3 ? directionalAt(toks, toks.length - 2) : null;
    if (two && two.used === 2) {
      postDirectional = two.dir;
      toks = toks.slice(0, -2);
    } else {
      const one = directionalAt(toks, toks.length - 1);
      if (one) {
        postDirectional = one.dir;
        toks = toks.slice(0, -1);
      }
    }
  }

  // Pre-directional, unless it is the street's whole name ("123 NORTH AVE", "N ST").
  let preDirectional: string | null = null;
  const pre = directionalAt(toks, 0);
  if (pre) {
    const rest = toks.slice(pre.used);
    const nameLeft = rest.length >= 2 || (rest.length === 1 && !suffixes.has(rest[0]!));
    if (nameLeft) {
      preDirectional = pre.dir;
      toks = rest;
    }
  }

  let streetSuffix: string | null = null;
  if (toks.length >= 2) {
    const abbr = suffixes.get(toks[toks.length - 1]!);
    if (abbr) {
      streetSuffix = abbr;
      toks = toks.slice(0, -1);
    }
  }

  const nameToks = numberOrdinals(toks);
  const streetName = nameToks.length ? nameToks.join(' ') : null;
  const line = [houseNumber, preDirectional, streetName, streetSuffix, postDirectional].filter((p): p is string => p !== null).join(' ');
  return { houseNumber, preDirectional, streetName, streetSuffix, postDirectional, poBox: null, unit, line };
}

/** Canonical unit text for an address_2 value; null when it is not a unit (e.g. "C/O ..."). */
export function parseUnitLine(raw: string, dir?: RefDir): Unit | null {
  const toks = streetTokens(raw);
  return parseUnitTokens(toks, dir);
}
