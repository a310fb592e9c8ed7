/**
 * A fetched batch → rows per dataset, in block and log order, for the JS
 * decoders (engine decoders insert their rows at commit, writeBatch.ts).
 * Decoding runs in block order across batches (pools found in one batch are
 * known to the next), so it happens at commit time, not while fetching.
 */
import type { Hex, RpcLog } from '../rpc/getLogs.ts';
import type { FetchedEvmBatch } from './fetchBatch.ts';
import type { DatasetPlan } from './planDatasets.ts';
import type { PoolBook } from './poolBook.ts';
import type { TokenBook } from './tokenBook.ts';
import { hexNumber, type BlockInfo, type DecodeContext, type PoolInfo, type ColumnValues } from '../../protocols/types.ts';

export interface DecodeEnv {
  readonly network: string;
  readonly nativeSymbol: string;
  readonly plan: DatasetPlan;
  readonly tokens: TokenBook;
  readonly pools: PoolBook;
}

export interface DecodedBatch {
  readonly rows: ReadonlyMap<string, ColumnValues[]>;
  readonly newPools: readonly PoolInfo[];
  /** Rows of every dataset, the engine decoders' included. */
  readonly events: number;
}

export function decodeBatch(env: DecodeEnv, batch: FetchedEvmBatch): DecodedBatch {
  const byEngine = new Set(env.plan.engineDecoders.flatMap((d) => d.datasets));
  const rows = new Map<string, ColumnValues[]>(env.plan.datasets.filter((d) => !byEngine.has(d)).map((d) => [d, []]));
  const newPools: PoolInfo[] = [];
  const first = batch.lo;
  const blockOf = (log: RpcLog): BlockInfo => batch.blocks[hexNumber(log.blockNumber) - first]!;
  let events = 0;

  const ctx: DecodeContext = {
    network: env.network,
    nativeSymbol: env.nativeSymbol,
    token: (address) => env.tokens.get(address),
    pool: (address) => env.pools.get(address),
    addPool(pool) {
      env.pools.add(pool);
      newPools.push(pool);
    },
    logKey(log) {
      return { network: env.network, block_number: hexNumber(log.blockNumber), log_index: hexNumber(log.logIndex), time: blockOf(log).time, tx_hash: log.transactionHash };
    },
    txSender(log) {
      const block = blockOf(log);
      const tx = block.txs?.[hexNumber(log.transactionIndex)];
      if (!tx) throw new Error(`block ${block.number} was fetched without the transaction of log ${hexNumber(log.logIndex)}`);
      return tx.from.toLowerCase() as Hex;
    },
    emit(dataset, row) {
      const list = rows.get(dataset);
      if (!list) return; // a dataset this run does not fill
      list.push(row);
      events++;
    },
  };

  for (const log of batch.logs) for (const d of env.plan.jsDecoders) d.decode(log, ctx);
  for (const e of batch.engine.values()) events += e.events;

  // Rows of the block decoders (native transfers), made when the batch was fetched.
  for (const [dataset, made] of batch.blockRows) {
    const out = rows.get(dataset);
    if (!out) continue;
    for (const row of made) out.push(row);
    events += made.length;
  }
  return { rows, newPools, events };
}
