/**
 * Pools created before the blocks being ingested: their events would be
 * dropped as unknown pools, so the factory's `PoolCreated` logs are read from
 * its deployment block up to the range first (one address, one topic: cheap
 * even over millions of blocks), and kept with their own coverage
 * (the discovery's coverage dataset) so that this happens once per stretch of blocks.
 */
import type { Store } from '../../store/types.ts';
import { coveredIntervals, gaps, union, type Interval } from '../../store/coverage.ts';
import type { Rpc } from '../rpc/createRpc.ts';
import { createLogFetcher } from '../rpc/getLogs.ts';
import type { PoolBook } from './poolBook.ts';
import type { TokenBook } from './tokenBook.ts';
import type { DecodeContext, JsDecoder, PoolDiscovery, PoolInfo } from '../../protocols/types.ts';
import { writePools } from './writeBatch.ts';

/** Blocks of PoolCreated logs committed at once. */
const CHUNK = 250_000;

export interface DiscoverPoolsParams {
  readonly store: Store;
  readonly rpc: Rpc;
  readonly network: string;
  readonly decoder: JsDecoder;
  readonly discovery: PoolDiscovery;
  readonly tokens: TokenBook;
  readonly pools: PoolBook;
  /** Ranges the main pass will read itself (their PoolCreated logs come with it). */
  readonly mainRanges: readonly Interval[];
  readonly upTo: number;
  readonly signal?: AbortSignal | undefined;
  readonly onNotice: (message: string) => void;
}

export async function discoverPools(p: DiscoverPoolsParams): Promise<number> {
  const { factory, deployedBlock, topic0, dataset } = p.discovery;
  const start = deployedBlock ?? 0;
  if (p.upTo < start) return 0;
  const covered = await coveredIntervals(p.store, dataset, p.network);
  const todo = gaps(start, p.upTo, union([...covered, ...p.mainRanges]));
  if (todo.length === 0) return 0;
  const fetcher = createLogFetcher(p.rpc, { address: [factory], topic0: [topic0] }, { initialRange: 50_000, maxRange: CHUNK });
  let found = 0;
  for (const g of todo) {
    p.onNotice(`discovering ${p.decoder.protocol} pools: the factory's PoolCreated logs over blocks ${g.lo}–${g.hi}`);
    for (let lo = g.lo; lo <= g.hi; lo += CHUNK) {
      if (p.signal?.aborted) return found;
      const hi = Math.min(g.hi, lo + CHUNK - 1);
      const logs = await fetcher.fetch(lo, hi);
      await p.tokens.ensure(logs.flatMap((l) => p.decoder.tokensOf(l)));
      const newPools: PoolInfo[] = [];
      const ctx: DecodeContext = {
        network: p.network,
        nativeSymbol: '',
        token: (a) => p.tokens.get(a),
        pool: (a) => p.pools.get(a),
        addPool: (pool) => {
          p.pools.add(pool);
          newPools.push(pool);
        },
        logKey: () => {
          throw new Error('pool discovery decodes PoolCreated only');
        },
        txSender: () => {
          throw new Error('pool discovery decodes PoolCreated only');
        },
        emit: () => undefined,
      };
      for (const log of logs) if (log.topics[0] === topic0) p.decoder.decode(log, ctx);
      await writePools(p.store, p.network, lo, hi, { newPools }, p.tokens, dataset);
      found += newPools.length;
    }
  }
  return found;
}
