/**
 * Nickname equivalence from nicknames.csv (carltonnorthern/nicknames).
 *
 * The file lists "formal has_nickname nick" pairs, and is not symmetric or consistent (it has
 * both "robert -> bob" and "bob -> robert"). Each name gets a set of canonical given names:
 * itself plus every name that lists it as a nickname. Two names are equivalent when those sets
 * intersect, which makes Bob ~ Robert ~ Bill work in both directions and transitively through
 * the shared canonical name, without chaining arbitrarily far (Bob -> Robert -> Rupert is one
 * hop through ROBERT, but unrelated names that merely share a nickname are not joined by it).
 */
import { boundedMemo } from '../../lib/memo.ts';
import { loadNicknames, type RefDir } from '../reference-data.ts';
import { canonicalName } from './name.ts';

function key(name: string): string | null {
  const c = canonicalName(name);
  return c ? c.toLowerCase() : null;
}

type Nicknames = ReturnType<typeof loadNicknames>;
/** canonicalGivenNames per nickname table (a file repeats its first names); dropped with the table. */
const givenNamesMemo = new WeakMap<Nicknames, (first: string) => string[]>();

/** Canonical given names (upper case, sorted) for a first name; includes the name itself. Frozen: do not mutate. */
export function canonicalGivenNames(first: string, dir?: RefDir): string[] {
  const table = loadNicknames(dir);
  let memo = givenNamesMemo.get(table);
  if (!memo) givenNamesMemo.set(table, (memo = boundedMemo((name) => Object.freeze(givenNames(name, table)) as string[])));
  return memo(first);
}

function givenNames(first: string, { formalsOf }: Nicknames): string[] {
  const k = key(first);
  if (!k) return [];
  const out = new Set<string>([k]);
  for (const f of formalsOf.get(k) ?? []) out.add(f);
  return [...out].map((n) => n.toUpperCase()).sort();
}

/** Every spelling equivalent to `first`: its canonical names and all their nicknames. */
export function nameVariants(first: string, dir?: RefDir): string[] {
  const { nicknamesOf } = loadNicknames(dir);
  const out = new Set<string>();
  for (const c of canonicalGivenNames(first, dir)) {
    out.add(c);
    for (const n of nicknamesOf.get(c.toLowerCase()) ?? []) out.add(n.toUpperCase());
  }
  return [...out].sort();
}

export function areNicknameEquivalent(a: string, b: string, dir?: RefDir): boolean {
  const ca = canonicalGivenNames(a, dir);
  if (ca.length === 0) return false;
  const cb = new Set(canonicalGivenNames(b, dir));
  return ca.some((n) => cb.has(n));
}
