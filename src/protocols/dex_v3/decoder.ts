/**
 * The v3 dex (Uniswap v3 factory and pool events). Pools are discovered from
 * the configured factory's `PoolCreated` (token0, token1, fee); only pools so
 * discovered are read, which leaves out forks that reuse the event
 * signatures. `Mint` is the `deposit` dataset and `Burn` the `withdraw` one.
 *
 * - Amounts are the pool's signed view: positive entered the pool. The API
 *   derives tokenSold/tokenBought from the signs.
 * - `swapper` is the transaction's sender (`from`): the account that started
 *   the swap, whichever router or aggregator called the pool. The pool's own
 *   `sender` (usually a router) and `recipient` are kept beside it.
 * - `sqrt_based_price` is token1 per token0 in token units:
 *   (sqrtPriceX96 / 2^96)^2 · 10^(decimals0 − decimals1). `liquidity` is the
 *   pool's in-range liquidity after the swap, raw and as a double.
 */
import { scaleAmount } from '../../utils/scaleAmount.ts';
import { createEventDecoder } from '../eventDecoder.ts';
import { type Hex, lowerHex, type RpcLog } from '../evmNode.ts';
import { datasetOf } from '../protocol.ts';
import type { PoolInfo, JsDecoder, PlanProtocol, ColumnValues } from '../types.ts';
import { DEX_ABI, dexEndpoints, POOLS_DATASET } from './catalog.ts';
import type { DexFactory } from './config.ts';

export { POOLS_DATASET };

const poolCreated = createEventDecoder(DEX_ABI.poolCreated);
const swap = createEventDecoder(DEX_ABI.swap);
const deposit = createEventDecoder(DEX_ABI.deposit);
const withdraw = createEventDecoder(DEX_ABI.withdraw);
const collect = createEventDecoder(DEX_ABI.collect);
const DATASETS = {
  swap: datasetOf(dexEndpoints, 'swap'),
  deposit: datasetOf(dexEndpoints, 'deposit'),
  withdraw: datasetOf(dexEndpoints, 'withdraw'),
  collect: datasetOf(dexEndpoints, 'collect'),
} as const;

export const POOL_CREATED_TOPIC = poolCreated.selector;
export const SWAP_TOPIC = swap.selector;

const Q96 = 2 ** 96;

/** token1 per token0, in token units, from a pool's sqrtPriceX96. */
export function sqrtBasedPrice(sqrtPriceX96: bigint, decimals0: number, decimals1: number): number {
  const r = Number(sqrtPriceX96) / Q96;
  return r * r * 10 ** (decimals0 - decimals1);
}

function poolColumns(p: PoolInfo, amount0: bigint, amount1: bigint): ColumnValues {
  return {
    pool_address: p.address,
    token0_address: p.token0.address,
    token0: p.token0.symbol,
    token0_decimals: p.token0.decimals,
    token1_address: p.token1.address,
    token1: p.token1.symbol,
    token1_decimals: p.token1.decimals,
    amount0_raw: amount0,
    amount0: scaleAmount(amount0, p.token0.decimals),
    amount1_raw: amount1,
    amount1: scaleAmount(amount1, p.token1.decimals),
  };
}

/** Pools of the factory configured for the network; without one, nothing. */
export const planDex: PlanProtocol<DexFactory> = ({ network, endpoints, config: factory }) => {
  const ids = endpoints.map((e) => e.id);
  if (!factory) return { datasets: [], decoder: null, skipped: ids.map((dataset) => ({ dataset, reason: `no dex_v3 factory configured for ${network}` })) };
  return { datasets: ids, decoder: createDexDecoder(factory.factory, factory.deployed_block), skipped: [] };
};

export function createDexDecoder(factory: Hex, deployedBlock: number | null = null): JsDecoder {
  const isFactoryLog = (log: RpcLog) => log.topics[0] === POOL_CREATED_TOPIC && log.address.toLowerCase() === factory;
  return {
    protocol: 'dex_v3',
    datasets: Object.values(DATASETS),
    topic0: [POOL_CREATED_TOPIC, swap.selector, deposit.selector, withdraw.selector, collect.selector],
    addresses: null,
    discovery: { factory, deployedBlock, topic0: POOL_CREATED_TOPIC, dataset: POOLS_DATASET },
    tokensOf(log) {
      if (!isFactoryLog(log)) return [];
      const a = poolCreated.decode(log);
      return a ? [a.token0, a.token1] : [];
    },
    needsSender: (log) => log.topics[0] === SWAP_TOPIC,
    decode(log, ctx) {
      if (isFactoryLog(log)) {
        const a = poolCreated.decode(log);
        if (!a) return;
        ctx.addPool({
          address: lowerHex(a.pool),
          fee: a.fee,
          token0: ctx.token(a.token0),
          token1: ctx.token(a.token1),
          createdBlock: Number(BigInt(log.blockNumber)),
        });
        return;
      }
      const pool = ctx.pool(lowerHex(log.address));
      if (!pool) return;
      const key = ctx.logKey(log);
      switch (log.topics[0]) {
        case swap.selector: {
          const a = swap.decode(log);
          if (!a) return;
          ctx.emit(DATASETS.swap, {
            ...key,
            ...poolColumns(pool, a.amount0, a.amount1),
            sender: a.sender,
            recipient: a.recipient,
            swapper: ctx.txSender(log),
            sqrt_price_x96: a.sqrtPriceX96,
            sqrt_based_price: sqrtBasedPrice(a.sqrtPriceX96, pool.token0.decimals, pool.token1.decimals),
            liquidity_raw: a.liquidity,
            liquidity: Number(a.liquidity),
            tick: a.tick,
          });
          return;
        }
        case deposit.selector: {
          const a = deposit.decode(log);
          if (!a) return;
          ctx.emit(DATASETS.deposit, {
            ...key,
            ...poolColumns(pool, a.amount0, a.amount1),
            sender: a.sender,
            owner: a.owner,
            tick_lower: a.tickLower,
            tick_upper: a.tickUpper,
            liquidity_raw: a.amount,
          });
          return;
        }
        case withdraw.selector: {
          const a = withdraw.decode(log);
          if (!a) return;
          ctx.emit(DATASETS.withdraw, {
            ...key,
            ...poolColumns(pool, a.amount0, a.amount1),
            owner: a.owner,
            tick_lower: a.tickLower,
            tick_upper: a.tickUpper,
            liquidity_raw: a.amount,
          });
          return;
        }
        case collect.selector: {
          const a = collect.decode(log);
          if (!a) return;
          ctx.emit(DATASETS.collect, {
            ...key,
            ...poolColumns(pool, a.amount0, a.amount1),
            owner: a.owner,
            recipient: a.recipient,
            tick_lower: a.tickLower,
            tick_upper: a.tickUpper,
          });
        }
      }
    },
  };
}
