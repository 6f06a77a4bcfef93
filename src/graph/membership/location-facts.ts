/**
 * The distinct tuples of a release's location fields (zip5, city, state): which values occur together,
 * for the privacy measure's logic (src/modules/privacy/location-facts.ts). One GROUP BY over the
 * persons table, read once per release.
 */
import { DISCOVERY_TABLE } from '../discovery-table.ts';
import type { FilterCatalog } from '../filters/index.ts';

/** The fields whose values determine one another in a US geography: a ZIP its city and state, a city its states. */
export const LOCATION_FIELDS = ['zip5', 'city', 'state'] as const;

/** The statement, with the catalog fields it reads in column order; null when the catalog has fewer than two of them as text columns. */
export function locationFactsSql(catalog: FilterCatalog, personsTable?: string): { sql: string; fields: string[] } | null {
  const present = LOCATION_FIELDS.flatMap((name) => {
    const f = catalog.find((x) => x.name === name);
    return f && f.type === 'STRING' && f.storage.kind === 'column' ? [{ name, column: f.storage.column }] : [];
  });
  if (present.length < 2) return null;
  const table = personsTable ?? `graph.${DISCOVERY_TABLE}`;
  const columns = present.map((f, i) => `p.${f.column} AS f${i}`).join(', ');
  return { sql: `SELECT ${columns} FROM ${table} p GROUP BY ALL`, fields: present.map((f) => f.name) };
}
