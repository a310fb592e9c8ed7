/** The shapes of export jobs as the API answers them (docs/api.md, "Exports"), and the client's options. */
export type ExportFormat = 'parquet' | 'csv';
export type ExportState = 'queued' | 'running' | 'done' | 'failed' | 'cancelled';

export interface ExportOptions {
  /** Default parquet. */
  readonly format?: ExportFormat;
  /** CSV only: gzip each file. */
  readonly compression?: 'gzip';
  /** Blocks per file, for block endpoints (server default 100,000). */
  readonly partitionBlocks?: number;
  /** Days per file, for venue endpoints (server default 1). */
  readonly partitionDays?: number;
  /** Refuse (400 cost_over_limit, nothing charged) when the export would cost more blocks than this. */
  readonly maxCost?: number;
}

/** What the server answers when it accepts an export. */
export interface ExportAccepted {
  readonly id: string;
  readonly status: 'queued';
  /** Blocks the whole export is priced at. */
  readonly cost: number;
  readonly partitions: number;
}

export interface ExportStatus {
  readonly id: string;
  readonly status: ExportState;
  readonly endpoint: string;
  readonly params: Readonly<Record<string, unknown>>;
  readonly format: ExportFormat;
  readonly compression: 'gzip' | null;
  readonly partitions: number;
  readonly partitions_done: number;
  readonly rows: number;
  readonly bytes: number;
  readonly cost: number;
  readonly charged: number;
  /** Null unless running. */
  readonly eta_seconds: number | null;
  readonly created_at: string;
  readonly finished_at: string | null;
  readonly expires_at: string | null;
  readonly error: { readonly code: string; readonly error: string } | null;
}

export interface ExportFile {
  /** `part-<start>-<end>.<ext>`; venues use dates, `part-YYYYMMDD-YYYYMMDD`. */
  readonly name: string;
  readonly block_start?: number;
  readonly block_end?: number;
  readonly time_start?: string;
  readonly time_end?: string;
  readonly rows: number;
  readonly bytes: number;
  readonly sha256: string;
  readonly first_block_hash: string | null;
  readonly last_block_hash: string | null;
  /** Only when the export was delivered to S3. */
  readonly url?: string;
}

export interface ExportManifest {
  readonly id: string;
  readonly endpoint: string;
  readonly params: Readonly<Record<string, unknown>>;
  readonly format: ExportFormat;
  readonly compression: 'gzip' | null;
  readonly columns: readonly { readonly name: string; readonly type: string }[];
  readonly files: readonly ExportFile[];
  readonly totals: { readonly files: number; readonly rows: number; readonly bytes: number };
}
