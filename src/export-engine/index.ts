/** The export engine (issue #14): see engine.ts. Protocol-free; the deliveries module wires it. */
export { exportRows, DEFAULT_PART_ROWS, DEFAULT_COMPRESSION_LEVEL, ID_COLUMN, ROW_ID_COLUMN } from './engine.ts';
export { buildRenderedRows, renderedRowsFileOf, type BuildRenderedRowsOptions, type BuiltRenderedRows } from './rendered/build.ts';
export { isCurrentRenderedRows, renderedRowsPath as renderedRowsPathOf } from './rendered/file.ts';
export { ExportFailedError, ExportRequestError } from './errors.ts';
export { CSV_ARRAY_SEPARATOR } from './columns.ts';
export { avroSchema } from './file-formats/avro.ts';
export type {
  ExportCompression,
  ExportField,
  ExportFieldType,
  ExportFormat,
  ExportMembers,
  ExportPart,
  ExportPersonIds,
  ExportRequest,
  ExportResult,
  ExportWarehouse,
  LevelsFile,
  MatchedRowsSource,
  MemberBases,
} from './types.ts';
export { csvCell } from './columns.ts';
