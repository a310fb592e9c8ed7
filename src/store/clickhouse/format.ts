/**
 * How ClickHouse encodes each API format: the output FORMAT and the settings
 * that make its bytes the API's (docs/storage.md).
 */
import type { Format } from '../../catalog/types.ts';

export interface ClickHouseExportFormat {
  readonly format: string;
  readonly settings: Readonly<Record<string, string | number>>;
}

export function clickHouseExport(format: Format): ClickHouseExportFormat {
  switch (format) {
    case 'csv': return { format: 'CSVWithNames', settings: {} };
    case 'json': return { format: 'JSONEachRow', settings: { output_format_json_quote_64bit_integers: 0 } };
    case 'parquet': return { format: 'Parquet', settings: { output_format_parquet_compression_method: 'zstd' } };
  }
}
