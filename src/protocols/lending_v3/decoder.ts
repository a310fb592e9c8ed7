/**
 * The lending protocol's v3 Pool events (Aave v3 `IPool`), read only from the
 * configured Pool addresses, each tagged with its market (Core, Prime,
 * EtherFi on ETH) for `eth_market_type`. `Supply` is the `deposit` dataset.
 * Amounts are scaled by the reserve token's decimals; `borrowRate` is a ray
 * (1e27), stored raw and as a fraction per year.
 */
import { scaleAmount } from '../../utils/scaleAmount.ts';
import { createEventDecoder } from '../eventDecoder.ts';
import { type Hex, lowerHex, type RpcLog } from '../evmNode.ts';
import { datasetOf } from '../protocol.ts';
import { LENDING_ABI, lendingEndpoints } from './catalog.ts';
import type { LendingMarket } from './config.ts';
import type { DecodeContext, JsDecoder, PlanProtocol, ColumnValues } from '../types.ts';

const supply = createEventDecoder(LENDING_ABI.deposit);
const withdraw = createEventDecoder(LENDING_ABI.withdraw);
const borrow = createEventDecoder(LENDING_ABI.borrow);
const repay = createEventDecoder(LENDING_ABI.repay);
const flashloan = createEventDecoder(LENDING_ABI.flashloan);
const liquidation = createEventDecoder(LENDING_ABI.liquidation);
const SELECTORS = [supply, withdraw, borrow, repay, flashloan, liquidation].map((d) => d.selector);
const dataset = (event: keyof typeof LENDING_ABI) => datasetOf(lendingEndpoints, event);
const DATASETS = {
  deposit: dataset('deposit'),
  withdraw: dataset('withdraw'),
  borrow: dataset('borrow'),
  repay: dataset('repay'),
  flashloan: dataset('flashloan'),
  liquidation: dataset('liquidation'),
} as const satisfies Record<keyof typeof LENDING_ABI, string>;

const RAY = 27;

function reserve(ctx: DecodeContext, address: Hex, prefix = ''): ColumnValues {
  const t = ctx.token(address);
  return { [`${prefix}token_address`]: t.address, [`${prefix}token`]: t.symbol, [`${prefix}token_decimals`]: t.decimals };
}

const amount = (name: string, raw: bigint, decimals: number): ColumnValues => ({ [`${name}_raw`]: raw, [name]: scaleAmount(raw, decimals) });

/** One log of a configured Pool as its dataset's row, with the reserve tokens the row needs. */
interface Parsed {
  readonly dataset: string;
  readonly tokens: readonly Hex[];
  row(ctx: DecodeContext): ColumnValues;
}

function parseLog(log: RpcLog): Parsed | null {
  switch (log.topics[0]) {
    case supply.selector: {
      const a = supply.decode(log);
      return (
        a && {
          dataset: DATASETS.deposit,
          tokens: [a.reserve],
          row: (ctx) => ({ user: a.user, on_behalf_of: a.onBehalfOf, referral_code: a.referralCode, ...reserve(ctx, a.reserve), ...amount('amount', a.amount, ctx.token(a.reserve).decimals) }),
        }
      );
    }
    case withdraw.selector: {
      const a = withdraw.decode(log);
      return (
        a && {
          dataset: DATASETS.withdraw,
          tokens: [a.reserve],
          row: (ctx) => ({ user: a.user, recipient: a.to, ...reserve(ctx, a.reserve), ...amount('amount', a.amount, ctx.token(a.reserve).decimals) }),
        }
      );
    }
    case borrow.selector: {
      const a = borrow.decode(log);
      return (
        a && {
          dataset: DATASETS.borrow,
          tokens: [a.reserve],
          row: (ctx) => ({
            user: a.user,
            on_behalf_of: a.onBehalfOf,
            interest_rate_mode: a.interestRateMode,
            ...amount('borrow_rate', a.borrowRate, RAY),
            referral_code: a.referralCode,
            ...reserve(ctx, a.reserve),
            ...amount('amount', a.amount, ctx.token(a.reserve).decimals),
          }),
        }
      );
    }
    case repay.selector: {
      const a = repay.decode(log);
      return (
        a && {
          dataset: DATASETS.repay,
          tokens: [a.reserve],
          row: (ctx) => ({ user: a.user, repayer: a.repayer, use_a_tokens: a.useATokens, ...reserve(ctx, a.reserve), ...amount('amount', a.amount, ctx.token(a.reserve).decimals) }),
        }
      );
    }
    case flashloan.selector: {
      const a = flashloan.decode(log);
      return (
        a && {
          dataset: DATASETS.flashloan,
          tokens: [a.asset],
          row: (ctx) => ({
            initiator: a.initiator,
            target: a.target,
            interest_rate_mode: a.interestRateMode,
            referral_code: a.referralCode,
            ...reserve(ctx, a.asset),
            ...amount('amount', a.amount, ctx.token(a.asset).decimals),
            ...amount('premium', a.premium, ctx.token(a.asset).decimals),
          }),
        }
      );
    }
    case liquidation.selector: {
      const a = liquidation.decode(log);
      return (
        a && {
          dataset: DATASETS.liquidation,
          tokens: [a.debtAsset, a.collateralAsset],
          row: (ctx) => ({
            owner: a.user,
            liquidator: a.liquidator,
            receive_a_token: a.receiveAToken,
            ...reserve(ctx, a.debtAsset, 'debt_'),
            ...reserve(ctx, a.collateralAsset, 'collateral_'),
            ...amount('debt_to_cover', a.debtToCover, ctx.token(a.debtAsset).decimals),
            ...amount('liquidated_collateral', a.liquidatedCollateralAmount, ctx.token(a.collateralAsset).decimals),
          }),
        }
      );
    }
    default:
      return null;
  }
}

/** The Pools configured for the network's markets; without any, nothing. */
export const planLending: PlanProtocol<readonly LendingMarket[]> = ({ network, endpoints, config }) => {
  const ids = endpoints.map((e) => e.id);
  const markets = config ?? [];
  if (markets.length === 0) return { datasets: [], decoder: null, skipped: ids.map((dataset) => ({ dataset, reason: `no lending_v3 pool configured for ${network}` })) };
  return { datasets: ids, decoder: createLendingDecoder(markets), skipped: [] };
};

export function createLendingDecoder(markets: readonly LendingMarket[]): JsDecoder {
  const marketOf = new Map(markets.map((m) => [m.pool, m.market]));
  const parse = (log: RpcLog): Parsed | null => (marketOf.has(lowerHex(log.address)) ? parseLog(log) : null);
  return {
    protocol: 'lending_v3',
    datasets: Object.values(DATASETS),
    topic0: SELECTORS,
    addresses: markets.map((m) => m.pool),
    tokensOf: (log) => parse(log)?.tokens ?? [],
    needsSender: () => false,
    decode(log, ctx) {
      const p = parse(log);
      if (!p) return;
      const pool = lowerHex(log.address);
      const market = marketOf.get(pool);
      if (market === undefined) return;
      ctx.emit(p.dataset, { ...ctx.logKey(log), market, pool_address: pool, ...p.row(ctx) });
    },
  };
}
