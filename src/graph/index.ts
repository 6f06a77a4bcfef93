/**
 * The graph facade the CLI (`ads graph generate|import|release`) and the server's first start call.
 * Each producer writes a new release file and moves the pointer; each reports progress through
 * `onProgress({step, done, total})`.
 */
export { generateGraph, GENERATE_STAGES, type GenerateGraphOptions } from './generate.ts';
export { releaseMajor, releaseMinor, DERIVE_STAGES, type DeriveReleaseOptions } from './derive.ts';
export { importGraph, mappingIssues, IMPORT_STAGES, type ImportGraphOptions, type ImportMapping, type ImportResult } from './import.ts';
export { readCurrentRelease, type ReleaseInfo } from './releases.ts';
export { acquireGenerateLock } from './generate-lock.ts';
export type { ProgressEvent, ProgressFn } from './build.ts';
export { GraphImportError, GraphReleaseError, WarehouseUnavailableError } from './errors.ts';
