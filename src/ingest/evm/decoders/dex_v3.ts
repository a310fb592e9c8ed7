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
import { parseAbiItem } from 'viem';
import { scaleAmount } from '../../../utils/scaleAmount.ts';
import type { Hex, RpcLog } from '../../rpc/getLogs.ts';
import { createEventDecoder } from '../eventDecoder.ts';
import type { PoolInfo, JsDecoder, Row } from '../types.ts';

export const DEX_EVENTS = {
  poolCreated: parseAbiItem('event PoolCreated(address indexed token0, address indexed token1, uint24 indexed fee, int24 tickSpacing, address pool)'),
  swap: parseAbiItem('event Swap(address indexed sender, address indexed recipient, int256 amount0, int256 amount1, uint160 sqrtPriceX96, uint128 liquidity, int24 tick)'),
  deposit: parseAbiItem('event Mint(address sender, address indexed owner, int24 indexed tickLower, int24 indexed tickUpper, uint128 amount, uint256 amount0, uint256 amount1)'),
  withdraw: parseAbiItem('event Burn(address indexed owner, int24 indexed tickLower, int24 indexed tickUpper, uint128 amount, uint256 amount0, uint256 amount1)'),
  collect: parseAbiItem('event Collect(address indexed owner, address recipient, int24 indexed tickLower, int24 indexed tickUpper, uint128 amount0, uint128 amount1)'),
} as const;

const poolCreated = createEventDecoder(DEX_EVENTS.poolCreated);
const poolEvents = {
  swap: createEventDecoder(DEX_EVENTS.swap),
  deposit: createEventDecoder(DEX_EVENTS.deposit),
  withdraw: createEventDecoder(DEX_EVENTS.withdraw),
  collect: createEventDecoder(DEX_EVENTS.collect),
};
const bySelector = new Map(Object.entries(poolEvents).map(([k, d]) => [d.selector, k as keyof typeof poolEvents]));

export const dexDataset = (event: string) => `evm/dex_v3/${event}`;
/** Coverage of pool discovery (not an endpoint): the factory's PoolCreated logs were read over these blocks. */
export const POOLS_DATASET = 'evm/dex_v3/pools';
export const POOL_CREATED_TOPIC = poolCreated.selector;
export const SWAP_TOPIC = poolEvents.swap.selector;

const Q96 = 2 ** 96;

/** token1 per token0, in token units, from a pool's sqrtPriceX96. */
export function sqrtBasedPrice(sqrtPriceX96: bigint, decimals0: number, decimals1: number): number {
  const r = Number(sqrtPriceX96) / Q96;
  return r * r * 10 ** (decimals0 - decimals1);
}

function poolColumns(p: PoolInfo, amount0: bigint, amount1: bigint): Row {
  return {
    pool_address: p.address,
    token0_address: p.token0.address, token0: p.token0.symbol, token0_decimals: p.token0.decimals,
    token1_address: p.token1.address, token1: p.token1.symbol, token1_decimals: p.token1.decimals,
    amount0_raw: amount0, amount0: scaleAmount(amount0, p.token0.decimals),
    amount1_raw: amount1, amount1: scaleAmount(amount1, p.token1.decimals),
  };
}

export function createDexDecoder(factory: Hex): JsDecoder {
  const isFactoryLog = (log: RpcLog) => log.topics[0] === POOL_CREATED_TOPIC && log.address.toLowerCase() === factory;
  return {
    protocol: 'dex_v3',
    datasets: Object.keys(poolEvents).map(dexDataset),
    topic0: [POOL_CREATED_TOPIC, ...Object.values(poolEvents).map((d) => d.selector)],
    addresses: null,
    tokensOf(log) {
      if (!isFactoryLog(log)) return [];
      const a = poolCreated.decode(log);
      return a ? [a.token0 as Hex, a.token1 as Hex] : [];
    },
    needsSender: (log) => log.topics[0] === SWAP_TOPIC,
    decode(log, ctx) {
      if (isFactoryLog(log)) {
        const a = poolCreated.decode(log);
        if (!a) return;
        ctx.addPool({
          address: (a.pool as string).toLowerCase() as Hex,
          fee: Number(a.fee),
          token0: ctx.token(a.token0 as Hex),
          token1: ctx.token(a.token1 as Hex),
          createdBlock: Number(BigInt(log.blockNumber)),
        });
        return;
      }
      const event = bySelector.get(log.topics[0]!);
      if (!event) return;
      const pool = ctx.pool(log.address.toLowerCase() as Hex);
      if (!pool) return;
      const a = poolEvents[event].decode(log);
      if (!a) return;
      const key = ctx.logKey(log);
      switch (event) {
        case 'swap': {
          const sqrt = a.sqrtPriceX96 as bigint;
          const liquidity = a.liquidity as bigint;
          ctx.emit(dexDataset(event), {
            ...key, ...poolColumns(pool, a.amount0 as bigint, a.amount1 as bigint),
            sender: a.sender as Hex, recipient: a.recipient as Hex, swapper: ctx.txSender(log),
            sqrt_price_x96: sqrt, sqrt_based_price: sqrtBasedPrice(sqrt, pool.token0.decimals, pool.token1.decimals),
            liquidity_raw: liquidity, liquidity: Number(liquidity), tick: Number(a.tick),
          });
          return;
        }
        case 'deposit':
          ctx.emit(dexDataset(event), {
            ...key, ...poolColumns(pool, a.amount0 as bigint, a.amount1 as bigint),
            sender: a.sender as Hex, owner: a.owner as Hex, tick_lower: Number(a.tickLower), tick_upper: Number(a.tickUpper), liquidity_raw: a.amount as bigint,
          });
          return;
        case 'withdraw':
          ctx.emit(dexDataset(event), {
            ...key, ...poolColumns(pool, a.amount0 as bigint, a.amount1 as bigint),
            owner: a.owner as Hex, tick_lower: Number(a.tickLower), tick_upper: Number(a.tickUpper), liquidity_raw: a.amount as bigint,
          });
          return;
        case 'collect':
          ctx.emit(dexDataset(event), {
            ...key, ...poolColumns(pool, a.amount0 as bigint, a.amount1 as bigint),
            owner: a.owner as Hex, recipient: a.recipient as Hex, tick_lower: Number(a.tickLower), tick_upper: Number(a.tickUpper),
          });
      }
    },
  };
}
