/**
 * Lookup of catalog fields by canonical name and by alias. The filter code takes the catalog as a
 * plain array (the catalog module owns the data); the index is cached per array instance.
 */
import type { CatalogField } from '../field-types.ts';

export type FilterCatalog = readonly CatalogField[];

export interface CatalogIndex {
  /** Canonical name or alias -> field. */
  resolve(name: string): CatalogField | undefined;
  /** Canonical names plus aliases, for "did you mean" suggestions. */
  allNames: readonly string[];
  /** Alias or canonical name -> canonical name. */
  canonicalOf(name: string): string | undefined;
}

const cache = new WeakMap<FilterCatalog, CatalogIndex>();

export function indexCatalog(catalog: FilterCatalog): CatalogIndex {
  const hit = cache.get(catalog);
  if (hit) return hit;
  const byName = new Map<string, CatalogField>();
  for (const f of catalog) byName.set(f.name, f);
  // Canonical names win over aliases if a catalog ever lists a name as both.
  for (const f of catalog) for (const a of f.aliases) if (!byName.has(a)) byName.set(a, f);
  const index: CatalogIndex = {
    resolve: (name) => byName.get(name),
    allNames: [...byName.keys()],
    canonicalOf: (name) => byName.get(name)?.name,
  };
  cache.set(catalog, index);
  return index;
}
