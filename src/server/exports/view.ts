/** An export as the API shows it (GET /v1/exports/{id}) and its manifest (docs/api.md, "Exports"). */
import type { ResultColumn, StoredExport, StoredExportPart } from '../../store/types.ts';

export interface ExportView {
  id: string;
  status: StoredExport['status'];
  endpoint: string;
  params: unknown;
  format: StoredExport['format'];
  compression: StoredExport['compression'];
  partitions: number;
  partitions_done: number;
  rows: number;
  bytes: number;
  cost: number;
  charged: number;
  eta_seconds: number | null;
  created_at: string;
  finished_at: string | null;
  expires_at: string | null;
  error: { code: string; error: string } | null;
}

export interface ManifestFile {
  name: string;
  block_start?: number;
  block_end?: number;
  time_start?: string;
  time_end?: string;
  rows: number;
  bytes: number;
  sha256: string;
  first_block_hash: string | null;
  last_block_hash: string | null;
  url?: string;
}

export interface Manifest {
  id: string;
  endpoint: string;
  params: unknown;
  format: StoredExport['format'];
  compression: StoredExport['compression'];
  columns: ResultColumn[];
  files: ManifestFile[];
  totals: { files: number; rows: number; bytes: number };
}

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);
const sum = (parts: readonly StoredExportPart[], f: (p: StoredExportPart) => number): number => parts.reduce((a, p) => a + f(p), 0);

export function exportView(job: StoredExport, parts: readonly StoredExportPart[], eta: number | null): ExportView {
  return {
    id: job.id,
    status: job.status,
    endpoint: job.endpoint,
    params: JSON.parse(job.params),
    format: job.format,
    compression: job.compression,
    partitions: job.partitions,
    partitions_done: parts.length,
    rows: sum(parts, (p) => p.rows),
    bytes: sum(parts, (p) => p.bytes),
    cost: job.cost,
    charged: sum(parts, (p) => p.charge),
    eta_seconds: job.status === 'running' ? eta : null,
    created_at: job.createdAt.toISOString(),
    finished_at: iso(job.finishedAt),
    expires_at: iso(job.expiresAt),
    error: job.errorCode ? { code: job.errorCode, error: job.errorMessage ?? '' } : null,
  };
}

function isColumn(v: unknown): v is ResultColumn {
  return typeof v === 'object' && v !== null && 'name' in v && 'type' in v && typeof v.name === 'string' && typeof v.type === 'string';
}

export function manifestOf(job: StoredExport, parts: readonly StoredExportPart[]): Manifest {
  const parsed: unknown = job.columns ? JSON.parse(job.columns) : [];
  const columns = Array.isArray(parsed) ? parsed.filter(isColumn) : [];
  const files = parts.map((p): ManifestFile => {
    const range =
      job.partitionBy === 'time' ? { time_start: new Date(p.rangeStart).toISOString(), time_end: new Date(p.rangeEnd).toISOString() } : { block_start: p.rangeStart, block_end: p.rangeEnd };
    return {
      name: p.name,
      ...range,
      rows: p.rows,
      bytes: p.bytes,
      sha256: p.sha256,
      first_block_hash: p.firstBlockHash,
      last_block_hash: p.lastBlockHash,
      ...(p.url ? { url: p.url } : {}),
    };
  });
  return {
    id: job.id,
    endpoint: job.endpoint,
    params: JSON.parse(job.params),
    format: job.format,
    compression: job.compression,
    columns,
    files,
    totals: { files: files.length, rows: sum(parts, (p) => p.rows), bytes: sum(parts, (p) => p.bytes) },
  };
}
