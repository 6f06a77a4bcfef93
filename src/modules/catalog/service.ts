/**
 * The field catalog as a service. The field list is static code (fields.ts, templates.ts), but a
 * catalog is only usable when the current release actually has the columns it describes, so
 * `getCatalog()` checks the release once per release file and can fail: callers map
 * CatalogUnavailableError (GET /v1/catalog/fields and segment creation answer 502
 * FILTER_CATALOG_UNAVAILABLE; discovery answers the warehouse's own 502/503).
 */
import { DISCOVERY_TABLE, releaseColumns } from '../../graph/index.ts';
import { WarehouseUnavailableError } from '../../graph/index.ts';
import type { ReleaseInfo } from '../../graph/index.ts';
import { DomainError } from '../../core/errors.ts';
import type { WarehouseReader } from '../../graph/index.ts';
import type { CatalogField, CatalogTemplate } from '../../graph/index.ts';

export class CatalogUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CatalogUnavailableError';
  }
}

export interface Catalog {
  fields: readonly CatalogField[];
  templates: readonly CatalogTemplate[];
  release: ReleaseInfo;
}

/** Whether discovery may group by the field: a plain column and not PII. */
export function isGroupable(f: CatalogField): boolean {
  return !f.pii && f.storage.kind === 'column' && f.type !== 'ARRAY<STRING>';
}

/** 502 FILTER_CATALOG_UNAVAILABLE, for routes that create things from filters. */
export function catalogUnavailable(cause?: unknown): DomainError {
  return new DomainError('FILTER_CATALOG_UNAVAILABLE', 'The field catalog cannot be read right now; nothing was created.', {
    cause,
    nextStep: 'Retry shortly; if it persists, contact support with the request_id.',
  });
}

export function createCatalogService(deps: {
  warehouse: WarehouseReader;
  fields: readonly CatalogField[];
  templates: readonly CatalogTemplate[];
}) {
  const { warehouse, fields, templates } = deps;
  let verified: { file: string; catalog: Catalog } | null = null;

  async function verify(release: ReleaseInfo): Promise<Catalog> {
    const columns = await releaseColumns(warehouse, ['persons', DISCOVERY_TABLE]);
    const columnsOf = (table: string) => columns.get(table) ?? new Set<string>();
    const persons = columnsOf('persons');
    const discovery = columnsOf(DISCOVERY_TABLE);
    if (persons.size === 0) throw new CatalogUnavailableError(`release ${release.file} has no persons table`);
    const missing = fields.filter((f) => !persons.has(f.storage.column)).map((f) => f.name);
    if (missing.length > 0) throw new CatalogUnavailableError(`release ${release.file} lacks columns for ${missing.join(', ')}`);
    // Discovery scans the discovery table: every non-identifying field must be there too. A release
    // written before that table existed fails here, typed, until a new release is made.
    const notDiscoverable = fields.filter((f) => !f.pii && !discovery.has(f.storage.column)).map((f) => f.name);
    if (notDiscoverable.length > 0 || !discovery.has('breakdown_key')) {
      throw new CatalogUnavailableError(
        `release ${release.file} has no complete ${DISCOVERY_TABLE} table; make a new release (ads graph release --minor)`,
      );
    }
    return { fields, templates, release };
  }

  return {
    /** The catalog valid for the current release; throws CatalogUnavailableError (cause: the warehouse error). */
    async getCatalog(): Promise<Catalog> {
      let release: ReleaseInfo;
      try {
        release = await warehouse.release();
        if (verified?.file === release.file) return verified.catalog;
        const catalog = await verify(release);
        verified = { file: release.file, catalog };
        return catalog;
      } catch (err) {
        if (err instanceof CatalogUnavailableError) throw err;
        throw new CatalogUnavailableError('the warehouse cannot be read', { cause: err });
      }
    },
    /** The static field list (no release check): for code that only needs names and flags. */
    fields,
    templates,
  };
}

export type CatalogService = ReturnType<typeof createCatalogService>;

/** Whether a catalog failure came from the warehouse having no release (503) or a missing release file (502). */
export function warehouseCauseOf(err: unknown): WarehouseUnavailableError | null {
  const cause = (err as { cause?: unknown })?.cause;
  return cause instanceof WarehouseUnavailableError ? cause : null;
}
