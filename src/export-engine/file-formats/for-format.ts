/** The row encoder of an output format (json and jsonl write the same lines). */
import { ExportRequestError } from '../errors.ts';
import type { ExportFormat } from '../types.ts';
import { avroEncoder } from './avro.ts';
import { csvEncoder } from './csv.ts';
import type { EncoderColumn, RowEncoder } from './encoder.ts';
import { jsonLinesEncoder } from './json.ts';

export function encoderFor(format: ExportFormat, columns: readonly EncoderColumn[]): RowEncoder {
  switch (format) {
    case 'csv':
      return csvEncoder(columns);
    case 'json':
    case 'jsonl':
      return jsonLinesEncoder(columns, format);
    case 'avro':
      return avroEncoder(columns);
    default:
      throw new ExportRequestError(`unknown output format ${String(format)}`);
  }
}
