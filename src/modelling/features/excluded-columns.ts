/**
 * `excluded_columns` (spec: "string of comma-prefixed feature columns", e.g. ",age,income_band"):
 * the catalog fields a model must not read. Parsed against the catalog passed in; names may be
 * canonical names or aliases and are returned canonical. Any unknown name fails the whole input with
 * every unknown name listed, so a typo never silently trains on a column the caller meant to drop.
 */
import { ModelInputError } from '../errors.ts';
import type { ModelField } from '../types.ts';

const MAX_LENGTH = 10_000;

export function parseExcludedColumns(text: string | null | undefined, fields: readonly ModelField[]): string[] {
  if (text === null || text === undefined) return [];
  if (typeof text !== 'string' || text.length > MAX_LENGTH) {
    throw new ModelInputError(
      'INVALID_EXCLUDED_COLUMNS',
      'excluded_columns must be a string of comma-prefixed column names, e.g. ",age,income_band".',
    );
  }
  const trimmed = text.trim();
  if (trimmed === '') return [];
  if (!trimmed.startsWith(',')) {
    throw new ModelInputError(
      'INVALID_EXCLUDED_COLUMNS',
      `excluded_columns must start with a comma: ",${trimmed}" excludes ${trimmed.split(',').filter(Boolean).join(', ')}.`,
    );
  }
  const byName = new Map<string, string>();
  for (const f of fields) byName.set(f.name.toLowerCase(), f.name);
  for (const f of fields) for (const a of f.aliases) if (!byName.has(a.toLowerCase())) byName.set(a.toLowerCase(), f.name);

  const out: string[] = [];
  const unknown: string[] = [];
  for (const raw of trimmed.slice(1).split(',')) {
    const name = raw.trim();
    if (name === '') continue;
    const canonical = byName.get(name.toLowerCase());
    if (!canonical) unknown.push(name);
    else if (!out.includes(canonical)) out.push(canonical);
  }
  if (unknown.length > 0) {
    const suggestions: Record<string, string[]> = {};
    for (const u of unknown)
      suggestions[u] = nearestNames(
        u,
        fields.map((f) => f.name),
      );
    const hint = unknown.map((u) => (suggestions[u]!.length ? `${u} (did you mean ${suggestions[u]!.join(' or ')}?)` : u)).join(', ');
    throw new ModelInputError('INVALID_EXCLUDED_COLUMNS', `excluded_columns names unknown columns: ${hint}.`, {
      columns: unknown,
      suggestions,
    });
  }
  return out;
}

/** Up to three names within edit distance ~half the input, closest first. */
function nearestNames(input: string, names: readonly string[]): string[] {
  const needle = input.toLowerCase();
  const max = Math.max(2, Math.ceil(needle.length / 2));
  return names
    .map((n) => [n, distance(needle, n.toLowerCase())] as const)
    .filter(([, d]) => d <= max)
    .sort((a, b) => a[1] - b[1] || a[0].localeCompare(b[0]))
    .slice(0, 3)
    .map(([n]) => n);
}

function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length]!;
}
