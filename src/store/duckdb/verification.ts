/**
 * Verification on DuckDB (../verification.ts): digests in one grouped query,
 * records appended in a transaction.
 */
import type { TableDef } from '../../catalog/types.ts';
import type { BlockDigest, BlockDigests, VerificationOperations } from '../types.ts';
import type { DuckDbStatements } from './types.ts';
import { verificationColumns, verificationRecordOf } from '../verificationRows.ts';
import { ident } from './render.ts';

type Statements = Pick<DuckDbStatements, 'all' | 'transaction'>;

/**
 * Digests of several tables in one grouped query: per query the engine costs
 * milliseconds whatever it reads, and a batch of a quiet chain holds few
 * rows in many tables. Answers in the order of `tables`.
 */
async function digests(db: Statements, tables: readonly TableDef[], network: string, lo: number, hi: number): Promise<BlockDigests[]> {
  if (tables.length === 0) return [];
  // Every column by name, in the catalog's order: the row's text never depends on the physical table.
  const parts = tables.map(
    (t, k) =>
      `SELECT ${k} AS k, block_number, CAST(row(${t.columns.map((c) => ident(c.name)).join(', ')}) AS VARCHAR) AS r FROM ${ident(t.name)} WHERE network = $network AND block_number BETWEEN $lo AND $hi`,
  );
  const rows = await db.all<{ k: number; block: bigint; n: bigint; h: string }>(
    `SELECT k, block_number AS block, count(*) AS n, md5(string_agg(r, chr(10) ORDER BY r)) AS h
     FROM (${parts.join(' UNION ALL ')})
     GROUP BY k, block_number`,
    { network, lo, hi },
  );
  const out = tables.map(() => new Map<number, BlockDigest>());
  for (const r of rows) out[Number(r.k)]?.set(Number(r.block), { rows: Number(r.n), hash: r.h });
  return out;
}

export function duckDbVerification(db: Statements): VerificationOperations {
  return {
    digests: (tables, network, lo, hi) => digests(db, tables, network, lo, hi),
    // The decoded rows sit in another DuckDB store: the same function of the same engine hashes them there.
    decodedDigests: (decoded, tables, network, lo, hi) => decoded.verification.digests(tables, network, lo, hi),
    async record(records) {
      if (records.length === 0) return;
      await db.transaction(async (tx) => {
        await tx.append(
          'verifications',
          records.map((r) => {
            const v = verificationColumns(r);
            return [v.network, v.dataset, r.verifiedAt, v.node, v.sampled, v.ranges, v.blocks, v.result, v.mismatches, v.mismatch_blocks];
          }),
        );
      });
    },
    async records(datasets) {
      if (datasets?.length === 0) return [];
      // A handful of rows per run: filtered here rather than binding a list.
      const rows = await db.all<{ network: string; dataset: string; verified_at: Date; node: string; sampled: boolean; ranges: string; blocks: bigint; result: string; mismatch_blocks: string }>(
        `SELECT network, dataset, verified_at, node, sampled, ranges, blocks, result, mismatch_blocks FROM verifications ORDER BY verified_at, dataset, network`,
      );
      return rows.filter((r) => !datasets || datasets.includes(r.dataset)).map((r) => verificationRecordOf({ ...r, verifiedAt: r.verified_at }));
    },
  };
}
