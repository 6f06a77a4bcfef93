/**
 * Parse a combined name ("full_name") into first / middle / last / suffix.
 *
 * Handles "Last, First M.", "Last Jr., First", "First Last, Jr.", honorific prefixes,
 * generational and professional suffixes, and multi-word surnames introduced by particles
 * (van, de la, st., o'). A lone "V" or "II" directly after a first name is kept as a name
 * because at least two name words must remain before a trailing token counts as a suffix.
 * When several suffixes appear ("JR MD") the generational one is returned, since that is what
 * distinguishes people; professional titles say nothing about identity.
 */
import { canonicalName } from './name.ts';
import { foldToAsciiUpper } from './text.ts';

export interface ParsedName {
  prefix: string | null;
  first: string | null;
  middle: string | null;
  last: string | null;
  suffix: string | null;
}

const PREFIXES = new Set(['DR', 'MR', 'MRS', 'MS', 'MISS', 'MX', 'PROF', 'REV', 'SIR', 'HON', 'FR']);
const GENERATIONAL: Record<string, string> = {
  JR: 'JR',
  JUNIOR: 'JR',
  SR: 'SR',
  SENIOR: 'SR',
  II: 'II',
  III: 'III',
  IV: 'IV',
  V: 'V',
  VI: 'VI',
  '2ND': 'II',
  '3RD': 'III',
  '4TH': 'IV',
};
const PROFESSIONAL: Record<string, string> = {
  ESQ: 'ESQ',
  ESQUIRE: 'ESQ',
  MD: 'MD',
  PHD: 'PHD',
  DDS: 'DDS',
  DO: 'DO',
  DVM: 'DVM',
  RN: 'RN',
  CPA: 'CPA',
  JD: 'JD',
  MBA: 'MBA',
};
// Lower-case particles that start a multi-word surname. O is "O'" split by a space.
const PARTICLES = new Set([
  'VAN',
  'VON',
  'DE',
  'DEL',
  'DELLA',
  'DER',
  'DEN',
  'DI',
  'DA',
  'DU',
  'DOS',
  'DAS',
  'LA',
  'LE',
  'ST',
  'SAINT',
  'STE',
  'TEN',
  'TER',
  'BIN',
  'BEN',
  'AL',
  'EL',
  'MAC',
  'MC',
  'O',
  'Y',
]);

/** Tokens of a name fragment: accents folded, periods dropped, apostrophes kept until canonical. */
function tokens(fragment: string): string[] {
  return (
    fragment
      .split(/\s+/)
      // "PH.D." and "M.D." are one word; "J.Q." or "Q.Smith" are separate initials / words.
      .flatMap((t) => {
        const solid = t.replace(/\./g, '');
        return suffixOf(solid) || PREFIXES.has(solid) ? [solid] : t.split('.');
      })
      .map((t) => t.replace(/^[^A-Z0-9']+|[^A-Z0-9']+$/g, ''))
      .filter((t) => t !== '' && t !== "'")
  );
}

function suffixOf(token: string): { canon: string; generational: boolean } | null {
  const t = token.replace(/'/g, '');
  if (GENERATIONAL[t]) return { canon: GENERATIONAL[t], generational: true };
  if (PROFESSIONAL[t]) return { canon: PROFESSIONAL[t], generational: false };
  return null;
}

function pickSuffix(found: { canon: string; generational: boolean }[]): string | null {
  return (found.find((s) => s.generational) ?? found[0])?.canon ?? null;
}

function join(parts: string[]): string | null {
  // A split Irish "O" ("O BRIEN") is written solid like "O'BRIEN" -> OBRIEN.
  return parts.length ? canonicalName(parts.join(' ').replace(/^O (?=[A-Z])/, "O'")) : null;
}

/** Split trailing suffix tokens off, keeping at least `keep` name tokens. */
function takeSuffixes(toks: string[], keep: number, found: { canon: string; generational: boolean }[]) {
  while (toks.length > keep) {
    const s = suffixOf(toks[toks.length - 1]!);
    if (!s) break;
    found.unshift(s);
    toks.pop();
  }
}

function takePrefixes(toks: string[]): string | null {
  let prefix: string | null = null;
  while (toks.length > 1 && PREFIXES.has(toks[0]!.replace(/'/g, ''))) {
    prefix ??= toks[0]!.replace(/'/g, '');
    toks.shift();
  }
  return prefix;
}

/** Index where the surname starts in "first [middle...] last" order. */
function surnameStart(toks: string[]): number {
  let i = toks.length - 1;
  while (i - 1 >= 1 && PARTICLES.has(toks[i - 1]!.replace(/'/g, ''))) i--;
  return i;
}

/** Canonical suffix for a name_suffix field ("Jr." -> "JR", "3rd" -> "III"); null if unknown. */
export function normalizeNameSuffix(raw: string | null | undefined): string | null {
  if (!raw) return null;
  const found = tokens(foldToAsciiUpper(raw).replace(/,/g, ' '))
    .map(suffixOf)
    .filter((s): s is { canon: string; generational: boolean } => s !== null);
  return pickSuffix(found);
}

export function parseFullName(full: string | null | undefined): ParsedName {
  const empty: ParsedName = { prefix: null, first: null, middle: null, last: null, suffix: null };
  if (!full) return empty;
  const text = foldToAsciiUpper(full).replace(/[()"]/g, ' ');
  const suffixes: { canon: string; generational: boolean }[] = [];
  const parts = text
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  if (parts.length === 0) return empty;

  // Comma parts after the first that are only suffixes ("John Public, Jr., MD") are not a
  // "Last, First" inversion.
  const rest = parts.slice(1);
  const onlySuffixes = rest.length > 0 && rest.every((p) => tokens(p).every((t) => suffixOf(t)));
  if (parts.length === 1 || onlySuffixes) {
    const toks = tokens(parts[0]!);
    for (const p of rest) for (const t of tokens(p)) suffixes.push(suffixOf(t)!);
    const prefix = takePrefixes(toks);
    takeSuffixes(toks, 2, suffixes);
    if (toks.length === 0) return { ...empty, prefix };
    if (toks.length === 1) return { ...empty, prefix, first: join(toks), suffix: pickSuffix(suffixes) };
    const s = surnameStart(toks);
    return {
      prefix,
      first: join(toks.slice(0, 1)),
      middle: join(toks.slice(1, s)),
      last: join(toks.slice(s)),
      suffix: pickSuffix(suffixes),
    };
  }

  // "Last [Suffix], [Prefix] First Middle [, Suffix...]"
  const lastToks = tokens(parts[0]!);
  takeSuffixes(lastToks, 1, suffixes);
  const givenToks = tokens(parts[1]!);
  const prefix = takePrefixes(givenToks);
  takeSuffixes(givenToks, 1, suffixes);
  for (const p of parts.slice(2))
    for (const t of tokens(p)) {
      const s = suffixOf(t);
      if (s) suffixes.push(s);
    }
  return {
    prefix,
    first: join(givenToks.slice(0, 1)),
    middle: join(givenToks.slice(1)),
    last: join(lastToks),
    suffix: pickSuffix(suffixes),
  };
}
