/**
 * Terms -> filter conditions, by the combining rules in parse.ts's header: one condition per
 * single-valued field (IN / NOT IN when several values), one per array value unless joined by "or",
 * one per numeric range; a boolean asked both ways and a negated array value are not used, each
 * with a note. Conditions keep the order of their first phrase.
 */
import type { Meaning } from './synonyms.ts';

export type SeedFilterOp = '=' | '!=' | '<' | '<=' | '>' | '>=' | 'IN' | 'NOT IN' | 'BETWEEN' | 'ARRAY_CONTAINS' | 'ARRAY_CONTAINS_ANY';
export type SeedFilterValue = string | number | boolean | (string | number | boolean)[];

export interface SeedFilter {
  field: string;
  op: SeedFilterOp;
  value: SeedFilterValue;
}

export interface UnderstoodPhrase {
  /** The words as written. */
  text: string;
  field: string;
  negated: boolean;
}

export interface SeedDescriptionParse {
  filters: SeedFilter[];
  understood: UnderstoodPhrase[];
  /** Words (as written) that carry meaning the parser could not map to the catalog. */
  unrecognized: string[];
  /** Why something understood was still not used (a contradiction, an unsupported negation). */
  notes: string[];
}

export interface Term {
  meaning: Meaning;
  negated: boolean;
  /** Joined to the previous term by "or". */
  or: boolean;
  text: string;
}

type Slot =
  | { kind: 'value'; field: string; negated: boolean; values: (string | boolean)[] }
  | { kind: 'contains'; field: string; values: string[] }
  | { kind: 'range'; filter: SeedFilter };

const FLIP: Record<string, SeedFilterOp> = { '>': '<=', '>=': '<', '<': '>=', '<=': '>', '=': '!=' };

export function combine(
  terms: readonly Term[],
  notes: string[],
  unrecognized: string[],
): Pick<SeedDescriptionParse, 'filters' | 'understood'> {
  const slots: Slot[] = [];
  const understood: UnderstoodPhrase[] = [];
  let lastContains: Extract<Slot, { kind: 'contains' }> | null = null;
  for (const t of terms) {
    const m = t.meaning;
    // "or" joins array values only when nothing else stands between them.
    if (m.kind !== 'contains' || m.field !== lastContains?.field) lastContains = m.kind === 'contains' ? lastContains : null;
    if (m.kind === 'contains') {
      if (t.negated) {
        notes.push(`"${t.text}" was not used: an interest or purchase behaviour can only be required, not excluded.`);
        unrecognized.push(t.text);
        continue;
      }
      if (t.or && lastContains && lastContains.field === m.field)
        lastContains.values.push(...m.values.filter((v) => !lastContains!.values.includes(v)));
      else slots.push((lastContains = { kind: 'contains', field: m.field, values: [...m.values] }));
    } else if (m.kind === 'range') {
      if (t.negated && m.op === 'BETWEEN') {
        notes.push(`"${t.text}" was not used: a range cannot be excluded.`);
        unrecognized.push(t.text);
        continue;
      }
      const op = t.negated ? FLIP[m.op]! : m.op;
      slots.push({ kind: 'range', filter: { field: m.field, op, value: Array.isArray(m.value) ? [...m.value] : (m.value as number) } });
    } else {
      // A negated boolean is the other boolean, not a negated condition.
      const isBool = typeof m.values[0] === 'boolean';
      const values = isBool && t.negated ? m.values.map((v) => !v) : m.values;
      const negated = t.negated && !isBool;
      let slot = slots.find(
        (s): s is Extract<Slot, { kind: 'value' }> => s.kind === 'value' && s.field === m.field && s.negated === negated,
      );
      if (!slot) slots.push((slot = { kind: 'value', field: m.field, negated, values: [] }));
      for (const v of values) if (!slot.values.includes(v)) slot.values.push(v);
    }
    understood.push({ text: t.text, field: m.field, negated: t.negated });
  }
  const filters: SeedFilter[] = [];
  for (const s of slots) {
    if (s.kind === 'range') filters.push(s.filter);
    else if (s.kind === 'contains')
      filters.push(
        s.values.length === 1
          ? { field: s.field, op: 'ARRAY_CONTAINS', value: s.values[0]! }
          : { field: s.field, op: 'ARRAY_CONTAINS_ANY', value: s.values },
      );
    else if (s.values.length > 1 && typeof s.values[0] === 'boolean')
      notes.push(`${s.field} was asked both ways (true and false); it is not used.`);
    else if (s.values.length === 1) filters.push({ field: s.field, op: s.negated ? '!=' : '=', value: s.values[0]! });
    else filters.push({ field: s.field, op: s.negated ? 'NOT IN' : 'IN', value: s.values });
  }
  return { filters, understood };
}
