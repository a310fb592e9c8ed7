/**
 * Export jobs on ClickHouse: every change inserts the job's (or the
 * partition's) whole row with a higher version, in one INSERT, and readers
 * take the latest with FINAL (docs/storage.md, "Writes without transactions").
 */
import { exportJobValues, exportPartValues, toStoredExport, toStoredPart, type ExportJobRow, type ExportPartRow } from '../exportRows.ts';
import type { ExportOperations, ResultColumn } from '../types.ts';
import type { ClickHouseStore } from './types.ts';

let last = 0n;
/** Microseconds since the epoch, strictly growing within this process: a later change always wins. */
function nextVersion(): string {
  const now = BigInt(Date.now()) * 1000n;
  last = now > last ? now : last + 1n;
  return String(last);
}

export function clickHouseExports(store: () => ClickHouseStore): ExportOperations {
  const jobs = async (where: string, params: Record<string, string>) => {
    const s = store();
    const rows = await s.query<ExportJobRow>(`SELECT * EXCEPT version FROM ${s.table('export_jobs')} FINAL ${where} ORDER BY created_ms DESC, id DESC`, params);
    return rows.map(toStoredExport);
  };
  return {
    async save(job) {
      await store().insert('export_jobs', [{ ...exportJobValues(job), version: nextVersion() }]);
    },
    async get(id) {
      return (await jobs('WHERE id = {id:String}', { id }))[0] ?? null;
    },
    list: (keyId) => jobs('WHERE key_id = {keyId:String}', { keyId }),
    all: () => jobs('', {}),
    async addPart(part) {
      await store().insert('export_parts', [{ ...exportPartValues(part), version: nextVersion() }]);
    },
    async parts(exportId) {
      const s = store();
      const rows = await s.query<ExportPartRow>(`SELECT * EXCEPT version FROM ${s.table('export_parts')} FINAL WHERE export_id = {id:String} ORDER BY idx`, { id: exportId });
      return rows.map(toStoredPart);
    },
    async describe(sql, params) {
      const s = store();
      const rows = await s.query<{ name: string; type: string }>(`DESCRIBE (${sql})`, params);
      return rows.map((r): ResultColumn => ({ name: r.name, type: r.type }));
    },
  };
}
