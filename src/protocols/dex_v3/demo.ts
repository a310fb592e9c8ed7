/** The demo's pool events on the busiest real pools, WETH/USDC at 0.05% and 0.30%, priced by the demo's ETH price path. */
import { LOG_KEY_VALUES, party, sharedDraw, type AmountPart, type DemoEvents, type DemoValue, type ProtocolDemo } from '../demo.ts';

interface DemoDexPool {
  readonly network: string;
  readonly fee: number;
  readonly address: string;
  readonly swapsPerDay: number;
}

const POOLS: readonly DemoDexPool[] = [
  { network: 'ETH', fee: 500, address: '0x88e6a0c2ddd26feeb64f039a2c41296fcb3f5640', swapsPerDay: 12_000 },
  { network: 'ETH', fee: 3000, address: '0x8ad599c3a0ff1de082011efddc58f1908eb6e6d8', swapsPerDay: 3_000 },
  { network: 'ARB', fee: 500, address: '0xc6962004f452be9203591991d15f6b388e09e8d0', swapsPerDay: 20_000 },
  { network: 'ARB', fee: 3000, address: '0xc473e2aee3441bf9240be85eb122abb059a3b57c', swapsPerDay: 2_000 },
  { network: 'BASE', fee: 500, address: '0xd0b53d9277642d899df5c87a3966a349a798f224', swapsPerDay: 20_000 },
  { network: 'BASE', fee: 3000, address: '0x6c561b446416e1a00e8e93e221854d6ea4171372', swapsPerDay: 2_000 },
];

type PoolEvent = 'swap' | 'deposit' | 'withdraw' | 'collect';

/** Liquidity events are rarer than swaps: one of each per so many swaps. */
const SWAPS_PER: Readonly<Record<PoolEvent, number>> = { swap: 1, deposit: 50, withdraw: 60, collect: 60 };
const EVENTS: readonly PoolEvent[] = ['swap', 'deposit', 'withdraw', 'collect'];

const amountOf = (side: 0 | 1, part: AmountPart): DemoValue => ({ kind: 'poolAmount', side, part });
const poolColumns: Readonly<Record<string, DemoValue>> = {
  pool_address: { kind: 'pool', field: 'address' },
  token0_address: { kind: 'poolToken', side: 0, field: 'address' },
  token0: { kind: 'poolToken', side: 0, field: 'symbol' },
  token0_decimals: { kind: 'poolToken', side: 0, field: 'decimals' },
  token1_address: { kind: 'poolToken', side: 1, field: 'address' },
  token1: { kind: 'poolToken', side: 1, field: 'symbol' },
  token1_decimals: { kind: 'poolToken', side: 1, field: 'decimals' },
  amount0_raw: amountOf(0, 'raw'),
  amount0: amountOf(0, 'units'),
  amount1_raw: amountOf(1, 'raw'),
  amount1: amountOf(1, 'units'),
};

/** A position's range: ticks on a grid of 60 (the 0.30% spacing), below and above the price. */
const ticks: Readonly<Record<string, DemoValue>> = {
  tick_lower: { kind: 'grid', draw: sharedDraw('tl'), from: -887220, step: 60, count: 100 },
  tick_upper: { kind: 'grid', draw: sharedDraw('tu'), from: 0, step: 60, count: 100 },
};
/** A position's liquidity, in proportion to the WETH it adds. */
const positionLiquidity: DemoValue = { kind: 'baseTimes', times: 1e15 };
/** The pool's active liquidity: about 2e18, drifting with the blocks. */
const activeLiquidity = (part: AmountPart): DemoValue => ({ kind: 'wave', level: 2e18, swing: 0.3, period: 5000, draw: sharedDraw('liq'), from: 0.9, span: 0.2, part });

const COLUMNS: Readonly<Record<PoolEvent, Readonly<Record<string, DemoValue>>>> = {
  swap: {
    sender: party('router', 50),
    recipient: party('recipient'),
    swapper: party('sender'),
    sqrt_price_x96: { kind: 'poolPrice', field: 'sqrtX96' },
    sqrt_based_price: { kind: 'poolPrice', field: 'price' },
    liquidity_raw: activeLiquidity('raw'),
    liquidity: activeLiquidity('units'),
    tick: { kind: 'poolPrice', field: 'tick' },
  },
  deposit: { sender: party('router', 20), owner: party('user'), ...ticks, liquidity_raw: positionLiquidity },
  withdraw: { owner: party('user'), ...ticks, liquidity_raw: positionLiquidity },
  collect: { owner: party('user'), recipient: party('user'), ...ticks },
};

function events(pool: DemoDexPool, event: PoolEvent): DemoEvents {
  return {
    event,
    network: pool.network,
    seed: `dex:${event}:${pool.network}:${pool.fee}`,
    perDay: pool.swapsPerDay / SWAPS_PER[event],
    trade: { pool: { address: pool.address, fee: pool.fee, base: 'WETH', quote: 'USDC', priceOf: 'ETH' }, scale: event === 'swap' ? 0.05 : 2, alpha: 1.15, swap: event === 'swap' },
    columns: { ...LOG_KEY_VALUES, ...poolColumns, ...COLUMNS[event] },
  };
}

export const dexDemo: ProtocolDemo = { events: POOLS.flatMap((pool) => EVENTS.map((event) => events(pool, event))) };
