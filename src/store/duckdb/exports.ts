/** Export jobs in DuckDB: a job's row is replaced whole at each change, inside one transaction. */
import { exportJobValues, exportPartValues, toStoredExport, toStoredPart, type ExportJobRow, type ExportPartRow } from '../exportRows.ts';
import type { ExportOperations, ResultColumn, SqlParams } from '../types.ts';
import type { DuckDbStatements } from './types.ts';

const JOB_COLUMNS = [
  'id',
  'key_id',
  'status',
  'endpoint',
  'params',
  'format',
  'compression',
  'partition_by',
  'range_start',
  'range_end',
  'partition_size',
  'partitions',
  'cost',
  'columns',
  'created_ms',
  'finished_ms',
  'expires_ms',
  'error_code',
  'error_message',
  'files_removed',
];
const PART_COLUMNS = ['export_id', 'idx', 'name', 'range_start', 'range_end', 'rows', 'bytes', 'sha256', 'first_block_hash', 'last_block_hash', 'charge', 'url'];

const placeholders = (cols: readonly string[]) => cols.map((c) => `$${c}`).join(', ');

/** Named values of a row: bigint-safe numbers as the engine binds them. */
function bind(row: ExportJobRow | ExportPartRow): SqlParams {
  const out: SqlParams = {};
  for (const [k, v] of Object.entries(row)) out[k] = typeof v === 'number' && Number.isInteger(v) ? BigInt(v) : v;
  return out;
}

export function duckDbExports(db: Pick<DuckDbStatements, 'all' | 'transaction'>, describe: (sql: string, params: SqlParams) => Promise<ResultColumn[]>): ExportOperations {
  const jobs = async (where: string, params: SqlParams) => (await db.all<ExportJobRow>(`SELECT * FROM export_jobs ${where} ORDER BY created_ms DESC, id DESC`, params)).map(toStoredExport);
  return {
    async save(job) {
      await db.transaction(async (tx) => {
        await tx.run(`DELETE FROM export_jobs WHERE id = $id`, { id: job.id });
        await tx.run(`INSERT INTO export_jobs (${JOB_COLUMNS.join(', ')}) VALUES (${placeholders(JOB_COLUMNS)})`, bind(exportJobValues(job)));
      });
    },
    async get(id) {
      return (await jobs('WHERE id = $id', { id }))[0] ?? null;
    },
    list: (keyId) => jobs('WHERE key_id = $keyId', { keyId }),
    all: () => jobs('', {}),
    async addPart(part) {
      await db.transaction(async (tx) => {
        await tx.run(`DELETE FROM export_parts WHERE export_id = $id AND idx = $idx`, { id: part.exportId, idx: part.index });
        await tx.run(`INSERT INTO export_parts (${PART_COLUMNS.join(', ')}) VALUES (${placeholders(PART_COLUMNS)})`, bind(exportPartValues(part)));
      });
    },
    async parts(exportId) {
      const rows = await db.all<ExportPartRow>(`SELECT * FROM export_parts WHERE export_id = $id ORDER BY idx`, { id: exportId });
      return rows.map(toStoredPart);
    },
    describe,
  };
}
