/**
 * The dex pools ingestion knows on one network: those in the `pools` table
 * plus those found in the batch being decoded (factory PoolCreated). A pool
 * row belongs to the block that created it, so a range re-ingest or a reorg
 * rollback removes and re-adds it with the range's other rows.
 */
import { storedPools } from '../../store/chainReads.ts';
import type { Store, TableRow } from '../../store/types.ts';
import type { Hex } from '../rpc/getLogs.ts';
import type { PoolInfo } from '../../protocols/types.ts';

export interface PoolBook {
  get(address: Hex): PoolInfo | undefined;
  add(pool: PoolInfo): void;
  /** Rereads the table (after a reorg removed pools). */
  reload(): Promise<void>;
}

export async function createPoolBook(store: Store, network: string): Promise<PoolBook> {
  const pools = new Map<string, PoolInfo>();
  async function reload(): Promise<void> {
    pools.clear();
    const rows = await storedPools(store, network);
    for (const r of rows) {
      pools.set(r.pool_address, {
        address: r.pool_address as Hex,
        fee: Number(r.fee),
        token0: { address: r.token0_address as Hex, symbol: r.token0, decimals: Number(r.token0_decimals) },
        token1: { address: r.token1_address as Hex, symbol: r.token1, decimals: Number(r.token1_decimals) },
        createdBlock: r.created_block === null ? null : Number(r.created_block),
      });
    }
  }
  await reload();
  return {
    get: (address) => pools.get(address),
    add: (pool) => {
      pools.set(pool.address, pool);
    },
    reload,
  };
}

/** `pools` table rows of the given pools, in column order. */
export function poolRows(network: string, pools: readonly PoolInfo[]): TableRow[] {
  return pools.map((p) => [network, p.address, p.fee, p.token0.address, p.token0.symbol, p.token0.decimals, p.token1.address, p.token1.symbol, p.token1.decimals, p.createdBlock]);
}
