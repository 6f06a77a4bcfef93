/**
 * The one entry to `src/graph` from the rest of the code (issue #33; .dependency-cruiser.cjs holds it):
 * the release producers the CLI (`ads graph generate|import|release`) and the server's first start
 * call (each writes a new release file and moves the pointer, reporting progress through
 * `onProgress({step, done, total})`), the warehouse client, the filter compiler, membership SQL and
 * the person fields.
 */
export { generateGraph, GENERATE_STAGES, type GenerateGraphOptions } from './generate.ts';
export { releaseMajor, releaseMinor, DERIVE_STAGES, type DeriveReleaseOptions } from './derive.ts';
export { importGraph, mappingIssues, IMPORT_STAGES, type ImportGraphOptions, type ImportMapping, type ImportResult } from './import.ts';
export { readCurrentRelease, type ReleaseInfo } from './releases.ts';
export { acquireGenerateLock } from './generate-lock.ts';
export type { ProgressEvent, ProgressFn } from './build.ts';
export { GraphImportError, GraphReleaseError, WarehouseUnavailableError } from './errors.ts';
export * from './client-errors.ts';
export * from './dialect.ts';
export * from './discovery-table.ts';
export * from './duck.ts';
export * from './errors.ts';
export * from './field-types.ts';
export * from './filters/catalog-index.ts';
export * from './filters/index.ts';
export * from './filters/text.ts';
export * from './membership/location-facts.ts';
export * from './member-files.ts';
export * from './membership/masked-sample.ts';
export * from './membership/masks.ts';
export * from './membership/sets.ts';
export * from './membership/sql.ts';
export * from './membership/types.ts';
export * from './person-fields.ts';
export * from './releases.ts';
export * from './retention.ts';
export * from './schema.ts';
export * from './vectors.ts';
export * from './warehouse.ts';
