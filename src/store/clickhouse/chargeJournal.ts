/**
 * The chDB store's usage ledger (../ledger.ts). An INSERT into
 * `usage_charges` is a chDB statement of several milliseconds, and a charge
 * is on every data response's path; chDB's directory belongs to this process
 * alone, as a DuckDB file does, so its charges go the DuckDB store's way: one
 * line in a journal opened O_DSYNC, durable when the write returns, moved into
 * the table in the background, a charge written ahead while its query runs
 * (../journalLedger.ts, which knows nothing of either engine). The journal of
 * each database sits in the data directory (`usage-journal/<database>`);
 * opening the store applies what a crash left there. A ClickHouse server,
 * which several API servers write, keeps the grouped INSERT.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ClickHouseClient } from '@clickhouse/client';
import { createJournalLedger, recoverJournal, type ApplyCharges } from '../journalLedger.ts';
import type { ChargeLedger } from '../ledger.ts';
import { ident } from './sql.ts';
import { clickHouseTime } from './time.ts';

/** The journal's directory for `database` of the chDB directory `dir`. */
export function journalDir(dir: string, database: string): string {
  return path.join(dir, 'usage-journal', database);
}

/**
 * Charges into `usage_charges` as one INSERT (ClickHouse applies it whole),
 * through `client`, which is outside the store's write clock: no lookup reads
 * the ledger. With `skipKnown` (recovery), charges whose request id the table
 * holds are left out: the crash may have come after their apply.
 */
function chdbApply(client: ClickHouseClient, database: string): ApplyCharges {
  const table = `${ident(database)}.${ident('usage_charges')}`;
  return async (charges, skipKnown) => {
    let rows = charges;
    if (skipKnown && rows.length) {
      const known = await client.query({
        query: `SELECT DISTINCT request_id FROM ${table} WHERE has({ids:Array(String)}, request_id)`,
        query_params: { ids: rows.map((c) => c.requestId) },
        format: 'JSONEachRow',
      });
      const ids = new Set((await known.json<{ request_id: string }>()).map((r) => r.request_id));
      rows = rows.filter((c) => !ids.has(c.requestId));
    }
    if (rows.length === 0) return;
    await client.insert({
      table: `${database}.usage_charges`,
      values: rows.map((c) => ({
        key_id: c.keyId,
        period: c.period,
        request_id: c.requestId,
        cost: c.cost,
        admitted_at: clickHouseTime(c.admittedAt),
        charged_at: clickHouseTime(c.chargedAt),
        endpoint: c.endpoint,
      })),
      format: 'JSONEachRow',
    });
  };
}

/** Applies what a crash left in the journal of `database`, then opens it for this process. */
export async function openChdbLedger(dir: string, database: string, client: ClickHouseClient): Promise<ChargeLedger> {
  const at = journalDir(dir, database);
  fs.mkdirSync(at, { recursive: true });
  const apply = chdbApply(client, database);
  await recoverJournal(at, apply);
  return createJournalLedger(at, apply);
}
