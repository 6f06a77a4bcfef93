/**
 * The phrase lexicon of one catalog: every phrase the parser understands, with its meaning, checked
 * against the live field descriptors (a field the catalog lacks, a PII field, an unknown vocabulary
 * value or a disallowed operator never makes it in). Sources, later ones winning on the same phrase:
 * 1. catalog vocabularies: enum values and bitmask values, '_' read as a space, also with a plural
 *    "s" ("online shopper(s)", "single family", "golf"); a phrase two fields share is left out as
 *    ambiguous; values with digits (income bands) and one-letter values are left to the synonyms;
 * 2. state names ("new york" -> state = NY);
 * 3. the synonym table (synonyms.ts).
 */
import { STATE_NAMES } from '../../identity/normalize/state.ts';
import type { ModelField } from '../types.ts';
import { SYNONYMS, type Meaning } from './synonyms.ts';

export interface Lexicon {
  phrases: Map<string, Meaning[]>;
  /** Longest phrase, in words. */
  maxWords: number;
  /** Usable fields by canonical name. */
  fields: Map<string, ModelField>;
}

const cache = new WeakMap<readonly ModelField[], Lexicon>();

export function lexiconOf(catalog: readonly ModelField[]): Lexicon {
  const hit = cache.get(catalog);
  if (hit) return hit;
  const fields = new Map<string, ModelField>();
  for (const f of catalog) if (!f.pii && f.filterable !== false) fields.set(f.name, f);
  const phrases = new Map<string, Meaning[]>();
  const names = new Set(catalog.flatMap((f) => [f.name, ...f.aliases].map((n) => n.replaceAll('_', ' '))));

  const fromVocab = new Map<string, Meaning | null>();
  for (const f of fields.values()) {
    const vocab = vocabularyOf(f);
    if (!vocab) continue;
    for (const value of vocab) {
      const phrase = value.toLowerCase().replaceAll('_', ' ');
      if (/\d/.test(phrase) || phrase.length < 2 || names.has(phrase)) continue;
      const meaning: Meaning =
        f.type === 'ARRAY<STRING>'
          ? { kind: 'contains', field: f.name, values: [value] }
          : { kind: 'value', field: f.name, values: [value] };
      for (const p of phrase.endsWith('s') ? [phrase] : [phrase, `${phrase}s`]) {
        const prev = fromVocab.get(p);
        fromVocab.set(p, prev === undefined || (prev && prev.field === f.name) ? meaning : null);
      }
    }
  }
  for (const [p, m] of fromVocab) if (m) phrases.set(p, [m]);

  if (valid({ kind: 'value', field: 'state', values: ['CA'] }, fields)) {
    for (const [name, code] of Object.entries(STATE_NAMES))
      phrases.set(name.toLowerCase(), [{ kind: 'value', field: 'state', values: [code] }]);
  }
  for (const [list, meanings] of SYNONYMS) {
    if (!meanings.every((m) => valid(m, fields))) continue;
    for (const p of list.split('|')) phrases.set(p, meanings);
  }
  const lexicon = { phrases, maxWords: Math.max(...[...phrases.keys()].map((p) => p.split(' ').length)), fields };
  cache.set(catalog, lexicon);
  return lexicon;
}

export function vocabularyOf(f: ModelField): readonly string[] | undefined {
  return f.storage.kind === 'bitmask' ? f.storage.values : f.enum_values;
}

const OP_OF: Record<Meaning['kind'], (m: Meaning) => string[]> = {
  value: (m) => (m.kind === 'value' && m.values.length > 1 ? ['IN', 'NOT IN'] : ['=', '!=']),
  contains: (m) => (m.kind === 'contains' && m.values.length > 1 ? ['ARRAY_CONTAINS_ANY'] : ['ARRAY_CONTAINS']),
  range: (m) => (m.kind === 'range' ? [m.op] : []),
};

/** Whether the catalog can express the meaning: field, operator, value types and vocabulary. */
export function valid(m: Meaning, fields: ReadonlyMap<string, ModelField>): boolean {
  const f = fields.get(m.field);
  if (!f) return false;
  if (f.operators && !OP_OF[m.kind](m).some((op) => f.operators!.includes(op))) return false;
  if (m.kind === 'range') return f.type === 'INTEGER' || f.type === 'NUMBER';
  if (m.kind === 'contains') return f.type === 'ARRAY<STRING>' && m.values.every((v) => vocabularyOf(f)?.includes(v));
  if (f.type === 'BOOLEAN') return m.values.every((v) => typeof v === 'boolean');
  if (f.type !== 'STRING') return false;
  const vocab = vocabularyOf(f);
  return m.values.every((v) => typeof v === 'string' && (!vocab || vocab.includes(v)));
}
