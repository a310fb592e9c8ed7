/**
 * The only writes EVM ingestion makes, each one transaction:
 *
 * - `writeBatch`: for blocks [lo, hi], delete what every planned dataset
 *   holds there, append the new rows, blocks, pools and token metadata, and
 *   record coverage. Re-running a range therefore leaves no duplicates, and a
 *   process killed at any moment leaves either the whole batch or none of it.
 * - `rollbackAbove`: a reorg. Delete rows, blocks, pools and coverage above the
 *   common ancestor across every EVM dataset of the network.
 */
import { chainEndpoints } from '../../catalog/index.ts';
import type { TableDef } from '../../catalog/types.ts';
import { clickHouseOf } from '../../store/clickhouse/createClickHouseStore.ts';
import { blockTable, publishBatch, rollbackClickHouse, type BatchTable } from '../../store/clickhouse/publish.ts';
import { recordOrphans } from '../../store/chainLog.ts';
import { addCoverageMany, removeCoverage } from '../../store/coverage.ts';
import { customTables } from '../../store/customDatasets.ts';
import type { AppendValue, Store, Tx } from '../../store/types.ts';
import { POOLS_DATASET } from './decoders/dex_v3.ts';
import { NATIVE_TRACES_DATASET } from './decoders/native.ts';
import type { DecodedBatch } from './decodeBatch.ts';
import { appendPools } from './poolBook.ts';
import type { TokenBook } from './tokenBook.ts';
import type { BlockInfo, EngineBatch, EngineDecoder, ColumnValues } from './types.ts';

/** Every built-in EVM dataset's table, by id: a reorg invalidates all of them, whatever one run ingests. */
const BUILT_IN_EVM_TABLES: ReadonlyMap<string, TableDef> = new Map(chainEndpoints.filter((e) => e.family === 'evm').map((e) => [e.id, e.table]));

function toColumns(table: TableDef, rows: readonly ColumnValues[]): AppendValue[][] {
  const names = table.columns.map((c) => c.name);
  return rows.map((row) =>
    names.map((n) => {
      const v = row[n];
      // Decoders set every column, null included: a missing one is a bug, not a null.
      if (v === undefined) throw new Error(`${table.name}: the decoder left column ${n} unset`);
      return v;
    }),
  );
}

export interface WriteBatchParams {
  readonly network: string;
  readonly lo: number;
  readonly hi: number;
  readonly datasets: readonly string[];
  /** The table of each dataset (planDatasets). */
  readonly tables: ReadonlyMap<string, TableDef>;
  readonly decoded: DecodedBatch;
  /** Engine decoders with what they insert, and the batch's log file they read. */
  readonly engine: readonly { readonly decoder: EngineDecoder; readonly batch: EngineBatch }[];
  readonly logFile: string | null;
  readonly blocks: readonly BlockInfo[];
  readonly tokens: TokenBook;
  /** Whether pools were discovered over this range (dex planned). */
  readonly pools: boolean;
  /** Native transfers planned: whether internal transfers (traces) are included. */
  readonly traces: boolean | null;
  /** Datasets that held nothing in [lo, hi] (never covered there): their delete is skipped. */
  readonly fresh?: readonly string[];
}

/** The tables an EVM batch of these datasets writes rows of its block range to. */
function batchTables(datasets: ReadonlyMap<string, TableDef>, pools: boolean): BatchTable[] {
  const tables = new Map<string, BatchTable>([['blocks', blockTable('blocks', 'number')]]);
  for (const t of datasets.values()) tables.set(t.name, blockTable(t.name));
  if (pools) tables.set('pools', blockTable('pools', 'created_block'));
  return [...tables.values()];
}

export async function writeBatch(store: Store, p: WriteBatchParams): Promise<void> {
  const ch = clickHouseOf(store);
  if (ch) {
    // Written as for DuckDB into a scratch store, then published in an order that needs no transaction.
    await publishBatch(
      ch,
      {
        scopes: [p.network],
        lo: p.lo,
        hi: p.hi,
        tables: batchTables(p.tables, p.pools),
        scratchTables: [...p.tables].filter(([id]) => !BUILT_IN_EVM_TABLES.has(id)).map(([, t]) => t),
        extraTables: ['token_cache'],
        covers: [...p.datasets, ...(p.pools ? [POOLS_DATASET] : []), ...(p.traces ? [NATIVE_TRACES_DATASET] : [])],
        uncovers: p.traces === false ? [NATIVE_TRACES_DATASET] : [],
      },
      (scratch) => writeBatch(scratch, { ...p, fresh: p.datasets }),
    );
    return;
  }
  const range = { network: p.network, lo: p.lo, hi: p.hi };
  await store.transaction(async (tx) => {
    // Headers first: engine decoders read the block times from them.
    await tx.run(`DELETE FROM blocks WHERE network = $network AND number BETWEEN $lo AND $hi`, range);
    await tx.append(
      'blocks',
      p.blocks.map((b) => [p.network, b.number, b.time, b.hash, b.parentHash]),
    );
    for (const dataset of p.datasets) {
      const table = p.tables.get(dataset);
      if (!table) throw new Error(`no table planned for ${dataset}`);
      if (!p.fresh?.includes(dataset)) await tx.run(`DELETE FROM ${table.name} WHERE network = $network AND block_number BETWEEN $lo AND $hi`, range);
      const rows = p.decoded.rows.get(dataset) ?? [];
      if (rows.length) await tx.append(table.name, toColumns(table, rows));
    }
    for (const { decoder, batch } of p.engine) {
      if (batch.events === 0) continue;
      if (!p.logFile) throw new Error(`${decoder.protocol}: ${batch.events} rows to insert, but the batch has no log file`);
      await decoder.engine.insert(tx, { network: p.network, lo: p.lo, hi: p.hi, file: p.logFile, batch, token: (a) => p.tokens.get(a) });
    }
    if (p.pools) {
      await tx.run(`DELETE FROM pools WHERE network = $network AND created_block BETWEEN $lo AND $hi`, range);
      await appendPools(tx, p.network, p.decoded.newPools);
    }
    await p.tokens.persist(tx);
    const covered = [...p.datasets, ...(p.pools ? [POOLS_DATASET] : []), ...(p.traces ? [NATIVE_TRACES_DATASET] : [])];
    await addCoverageMany(tx, covered, p.network, p.lo, p.hi);
    // Re-ingested without traces: internal transfers of this range are no longer held.
    if (p.traces === false) await removeCoverage(tx, NATIVE_TRACES_DATASET, p.network, p.lo, p.hi);
  });
}

/** Pools found by the discovery pre-scan over [lo, hi] (no dataset rows). */
export async function writePools(store: Store, network: string, lo: number, hi: number, decoded: Pick<DecodedBatch, 'newPools'>, tokens: TokenBook): Promise<void> {
  const ch = clickHouseOf(store);
  if (ch) {
    await publishBatch(
      ch,
      {
        scopes: [network],
        lo,
        hi,
        tables: [blockTable('pools', 'created_block')],
        extraTables: ['token_cache'],
        covers: [POOLS_DATASET],
        uncovers: [],
      },
      (scratch) => writePools(scratch, network, lo, hi, decoded, tokens),
    );
    return;
  }
  await store.transaction(async (tx) => {
    await tx.run(`DELETE FROM pools WHERE network = $network AND created_block BETWEEN $lo AND $hi`, { network, lo, hi });
    await appendPools(tx, network, decoded.newPools);
    await tokens.persist(tx);
    await addCoverageMany(tx, [POOLS_DATASET], network, lo, hi);
  });
}

const FAR = Number.MAX_SAFE_INTEGER;

export async function rollbackAbove(store: Store, network: string, ancestor: number): Promise<void> {
  // Operator-defined datasets too: their rows above the ancestor are as stale, whichever run ingested them.
  const all = new Map([...BUILT_IN_EVM_TABLES, ...(await customTables(store))]);
  const ch = clickHouseOf(store);
  if (ch) {
    await rollbackClickHouse(ch, network, ancestor, [...all.keys(), POOLS_DATASET, NATIVE_TRACES_DATASET], batchTables(all, true));
    return;
  }
  const p = { network, ancestor };
  await store.transaction(async (tx: Tx) => {
    for (const [dataset, table] of all) {
      await tx.run(`DELETE FROM ${table.name} WHERE network = $network AND block_number > $ancestor`, p);
      await removeCoverage(tx, dataset, network, ancestor + 1, FAR);
    }
    for (const extra of [POOLS_DATASET, NATIVE_TRACES_DATASET]) await removeCoverage(tx, extra, network, ancestor + 1, FAR);
    await recordOrphans(tx, network, ancestor);
    await tx.run(`DELETE FROM blocks WHERE network = $network AND number > $ancestor`, p);
    await tx.run(`DELETE FROM pools WHERE network = $network AND created_block > $ancestor`, p);
  });
}
