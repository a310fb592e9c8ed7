/**
 * Verification on ClickHouse (../verification.ts). Each engine writes a
 * row's text its own way, so the node's rows, decoded into an in-memory
 * DuckDB store, are moved into a temporary table here and hashed by
 * ClickHouse like the stored ones.
 */
import { randomUUID } from 'node:crypto';
import type { TableDef } from '../../catalog/types.ts';
import type { BlockDigests, VerificationOperations } from '../types.ts';
import { verificationColumns, verificationRecordOf } from '../verificationRows.ts';
import { requireDuckDb } from '../duckdb/types.ts';
import { moveRows } from './scratchTransfer.ts';
import { ident } from './render.ts';
import { clickHouseTime, parseClickHouseTime } from './time.ts';
import type { ClickHouseStore } from './types.ts';

async function digests(ch: ClickHouseStore, from: string, table: TableDef, network: string, lo: number, hi: number): Promise<BlockDigests> {
  const tuple = table.columns.map((c) => ident(c.name)).join(', ');
  const rows = await ch.query<{ block: number | string; n: number | string; h: string }>(
    `SELECT block_number AS block, count() AS n, lower(hex(MD5(arrayStringConcat(arraySort(groupArray(r)), '\\n')))) AS h
     FROM (SELECT block_number, toString(tuple(${tuple})) AS r FROM ${from} WHERE network = {network:String} AND block_number BETWEEN {lo:Int64} AND {hi:Int64})
     GROUP BY block_number`,
    { network, lo, hi },
  );
  return new Map(rows.map((r) => [Number(r.block), { rows: Number(r.n), hash: r.h }]));
}

export function clickHouseVerification(store: () => ClickHouseStore): VerificationOperations {
  return {
    async digests(tables, network, lo, hi) {
      const ch = store();
      const out: BlockDigests[] = [];
      for (const t of tables) out.push(await digests(ch, ch.table(t.name), t, network, lo, hi));
      return out;
    },
    async decodedDigests(decoded, tables, network, lo, hi) {
      const ch = store();
      const out: BlockDigests[] = [];
      for (const table of tables) {
        const name = `verify_${randomUUID().replaceAll('-', '')}`;
        await ch.command(`CREATE TABLE ${ch.table(name)} AS ${ch.table(table.name)} ENGINE = Memory`);
        try {
          await moveRows(requireDuckDb(decoded, 'the decode store'), ch, table.name, name);
          out.push(await digests(ch, ch.table(name), table, network, lo, hi));
        } finally {
          await ch.command(`DROP TABLE IF EXISTS ${ch.table(name)}`);
        }
      }
      return out;
    },
    async record(records) {
      if (records.length === 0) return;
      await store().insert(
        'verifications',
        records.map((r) => ({ ...verificationColumns(r), verified_at: clickHouseTime(r.verifiedAt.getTime()) })),
      );
    },
    async records(datasets) {
      if (datasets?.length === 0) return [];
      const ch = store();
      const rows = await ch.query<{
        network: string;
        dataset: string;
        verified_at: string;
        node: string;
        sampled: boolean | number;
        ranges: string;
        blocks: number | string;
        result: string;
        mismatch_blocks: string;
      }>(
        `SELECT network, dataset, toString(verified_at) AS verified_at, node, sampled, ranges, blocks, result, mismatch_blocks
         FROM ${ch.table('verifications')}${datasets ? ' WHERE dataset IN {datasets:Array(String)}' : ''} ORDER BY verified_at, dataset, network`,
        datasets ? { datasets } : {},
      );
      return rows.map((r) => verificationRecordOf({ ...r, verifiedAt: parseClickHouseTime(r.verified_at) ?? new Date(0) }));
    },
  };
}
