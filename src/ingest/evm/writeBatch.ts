/**
 * The only writes EVM ingestion makes, each one store operation made visible
 * whole (`store.chain`, src/store/types.ts):
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
import { customTables } from '../../store/customDatasets.ts';
import type { Store, TableRow } from '../../store/types.ts';
import { protocolRegistry } from '../../protocols/index.ts';
import type { DecodedBatch } from './decodeBatch.ts';
import { poolRows } from './poolBook.ts';
import type { TokenBook } from './tokenBook.ts';
import type { BlockInfo, EngineBatch, EngineDecoder, ColumnValues } from '../../protocols/types.ts';

/** Every built-in EVM dataset's table, by id: a reorg invalidates all of them, whatever one run ingests. */
const BUILT_IN_EVM_TABLES: ReadonlyMap<string, TableDef> = new Map(chainEndpoints.filter((e) => e.family === 'evm').map((e) => [e.id, e.table]));

function toColumns(table: TableDef, rows: readonly ColumnValues[]): TableRow[] {
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
  /** The coverage dataset of the pools discovered over this range, when a planned decoder discovers pools. */
  readonly pools: string | undefined;
  /** Block decoders planned: whether they read call traces; null without block decoders. */
  readonly traces: boolean | null;
  /** The block decoders' coverage of blocks read with call traces (BlockDecoder.tracedCoverage). */
  readonly tracedCoverage: readonly string[];
  /** Datasets that held nothing in [lo, hi] (never covered there): their delete is skipped. */
  readonly fresh?: readonly string[];
}

/** Coverage a batch gains: its datasets, pools when discovered, blocks read with call traces when traced. */
const coveredBy = (p: WriteBatchParams) => [...p.datasets, ...(p.pools ? [p.pools] : []), ...(p.traces ? p.tracedCoverage : [])];

export async function writeBatch(store: Store, p: WriteBatchParams): Promise<void> {
  const fromFile = p.engine.filter(({ batch }) => batch.events > 0);
  const file = (protocol: string, events: number): string => {
    if (!p.logFile) throw new Error(`${protocol}: ${events} rows to insert, but the batch has no log file`);
    return p.logFile;
  };
  const transfers = fromFile.flatMap(({ decoder: { engine, protocol }, batch }) =>
    engine.event ? [] : [engine.transfers({ network: p.network, lo: p.lo, hi: p.hi, file: file(protocol, batch.events), batch, token: (a) => p.tokens.get(a) })],
  );
  const events = fromFile.flatMap(({ decoder: { engine, protocol }, batch }) => (engine.event ? [{ event: engine.event, file: file(protocol, batch.events), events: batch.events }] : []));
  await store.chain.publish({
    network: p.network,
    lo: p.lo,
    hi: p.hi,
    blocks: p.blocks.map((b) => ({ number: b.number, time: b.time, hash: b.hash, parentHash: b.parentHash })),
    tables: p.datasets.map((dataset) => {
      const table = p.tables.get(dataset);
      if (!table) throw new Error(`no table planned for ${dataset}`);
      return { table: table.name, rows: toColumns(table, p.decoded.rows.get(dataset) ?? []), fresh: p.fresh?.includes(dataset) ?? false };
    }),
    transfers,
    events,
    ...(p.pools ? { pools: poolRows(p.network, p.decoded.newPools) } : {}),
    tokenCache: p.tokens.takeUnsaved(),
    covers: coveredBy(p),
    // Re-ingested without traces: what traces added to this range (internal transfers) is no longer held.
    uncovers: p.traces === false ? p.tracedCoverage : [],
    definedTables: [...p.tables].filter(([id]) => !BUILT_IN_EVM_TABLES.has(id)).map(([, t]) => t),
  });
}

/** Pools found by the discovery pre-scan over [lo, hi] (no dataset rows), covering `dataset` (the discovery's). */
export async function writePools(store: Store, network: string, lo: number, hi: number, decoded: Pick<DecodedBatch, 'newPools'>, tokens: TokenBook, dataset: string): Promise<void> {
  await store.chain.publish({
    network,
    lo,
    hi,
    tables: [],
    pools: poolRows(network, decoded.newPools),
    tokenCache: tokens.takeUnsaved(),
    covers: [dataset],
    uncovers: [],
  });
}

const FAR = Number.MAX_SAFE_INTEGER;

export async function rollbackAbove(store: Store, network: string, ancestor: number): Promise<void> {
  // Operator-defined datasets too: their rows above the ancestor are as stale, whichever run ingested them.
  const all = new Map([...BUILT_IN_EVM_TABLES, ...(await customTables(store))]);
  await store.chain.rollback({
    network,
    ancestor,
    through: FAR,
    datasets: [...all].map(([id, table]) => ({ id, table: table.name })),
    // What protocols cover beside their datasets (pools discovered, internal transfers traced) goes with them.
    coverageOnly: protocolRegistry.protocols.flatMap((p) => p.extraCoverage),
    pools: true,
  });
}
