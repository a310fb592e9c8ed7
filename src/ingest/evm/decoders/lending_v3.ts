/**
 * The lending protocol's v3 Pool events (Aave v3 `IPool`), read only from the
 * configured Pool addresses, each tagged with its market (Core, Prime,
 * EtherFi on ETH) for `eth_market_type`. `Supply` is the `deposit` dataset.
 * Amounts are scaled by the reserve token's decimals; `borrowRate` is a ray
 * (1e27), stored raw and as a fraction per year.
 */
import { parseAbiItem } from 'viem';
import type { LendingMarket } from '../../../reference/protocols.ts';
import { scaleAmount } from '../../../utils/scaleAmount.ts';
import type { Hex, RpcLog } from '../../rpc/getLogs.ts';
import { createEventDecoder, type EventArgs } from '../eventDecoder.ts';
import type { DecodeContext, JsDecoder, Row } from '../types.ts';

export const LENDING_EVENTS = {
  deposit: parseAbiItem('event Supply(address indexed reserve, address user, address indexed onBehalfOf, uint256 amount, uint16 indexed referralCode)'),
  withdraw: parseAbiItem('event Withdraw(address indexed reserve, address indexed user, address indexed to, uint256 amount)'),
  borrow: parseAbiItem('event Borrow(address indexed reserve, address user, address indexed onBehalfOf, uint256 amount, uint8 interestRateMode, uint256 borrowRate, uint16 indexed referralCode)'),
  repay: parseAbiItem('event Repay(address indexed reserve, address indexed user, address indexed repayer, uint256 amount, bool useATokens)'),
  flashloan: parseAbiItem('event FlashLoan(address indexed target, address initiator, address indexed asset, uint256 amount, uint8 interestRateMode, uint256 premium, uint16 indexed referralCode)'),
  liquidation: parseAbiItem('event LiquidationCall(address indexed collateralAsset, address indexed debtAsset, address indexed user, uint256 debtToCover, uint256 liquidatedCollateralAmount, address liquidator, bool receiveAToken)'),
} as const;

type LendingEvent = keyof typeof LENDING_EVENTS;
const decoders = Object.fromEntries(Object.entries(LENDING_EVENTS).map(([k, e]) => [k, createEventDecoder(e)])) as Record<LendingEvent, ReturnType<typeof createEventDecoder>>;
const bySelector = new Map(Object.entries(decoders).map(([k, d]) => [d.selector, k as LendingEvent]));

const RAY = 27;
export const lendingDataset = (event: string) => `evm/lending_v3/${event}`;

/** The reserve tokens a log names, by event. */
function tokenArgs(event: LendingEvent, a: EventArgs): Hex[] {
  switch (event) {
    case 'flashloan': return [a.asset as Hex];
    case 'liquidation': return [a.debtAsset as Hex, a.collateralAsset as Hex];
    default: return [a.reserve as Hex];
  }
}

function reserve(ctx: DecodeContext, address: Hex, prefix = ''): Row {
  const t = ctx.token(address);
  return { [`${prefix}token_address`]: t.address, [`${prefix}token`]: t.symbol, [`${prefix}token_decimals`]: t.decimals };
}

const amount = (name: string, raw: bigint, decimals: number): Row => ({ [`${name}_raw`]: raw, [name]: scaleAmount(raw, decimals) });

export function createLendingDecoder(markets: readonly LendingMarket[]): JsDecoder {
  const marketOf = new Map(markets.map((m) => [m.pool, m.market]));
  const parse = (log: RpcLog): [LendingEvent, EventArgs] | null => {
    if (!marketOf.has(log.address.toLowerCase() as Hex)) return null;
    const event = bySelector.get(log.topics[0]!);
    if (!event) return null;
    const args = decoders[event].decode(log);
    return args ? [event, args] : null;
  };
  return {
    protocol: 'lending_v3',
    datasets: Object.keys(LENDING_EVENTS).map(lendingDataset),
    topic0: Object.values(decoders).map((d) => d.selector),
    addresses: markets.map((m) => m.pool),
    tokensOf(log) {
      const p = parse(log);
      return p ? tokenArgs(...p) : [];
    },
    needsSender: () => false,
    decode(log, ctx) {
      const p = parse(log);
      if (!p) return;
      const [event, a] = p;
      const pool = log.address.toLowerCase() as Hex;
      const base: Row = { ...ctx.logKey(log), market: marketOf.get(pool)!, pool_address: pool };
      const dec = (address: unknown) => ctx.token(address as Hex).decimals;
      let row: Row;
      switch (event) {
        case 'deposit':
          row = { user: a.user as Hex, on_behalf_of: a.onBehalfOf as Hex, referral_code: Number(a.referralCode), ...reserve(ctx, a.reserve as Hex), ...amount('amount', a.amount as bigint, dec(a.reserve)) };
          break;
        case 'withdraw':
          row = { user: a.user as Hex, recipient: a.to as Hex, ...reserve(ctx, a.reserve as Hex), ...amount('amount', a.amount as bigint, dec(a.reserve)) };
          break;
        case 'borrow':
          row = {
            user: a.user as Hex, on_behalf_of: a.onBehalfOf as Hex, interest_rate_mode: Number(a.interestRateMode),
            ...amount('borrow_rate', a.borrowRate as bigint, RAY), referral_code: Number(a.referralCode),
            ...reserve(ctx, a.reserve as Hex), ...amount('amount', a.amount as bigint, dec(a.reserve)),
          };
          break;
        case 'repay':
          row = { user: a.user as Hex, repayer: a.repayer as Hex, use_a_tokens: a.useATokens as boolean, ...reserve(ctx, a.reserve as Hex), ...amount('amount', a.amount as bigint, dec(a.reserve)) };
          break;
        case 'flashloan':
          row = {
            initiator: a.initiator as Hex, target: a.target as Hex, interest_rate_mode: Number(a.interestRateMode), referral_code: Number(a.referralCode),
            ...reserve(ctx, a.asset as Hex), ...amount('amount', a.amount as bigint, dec(a.asset)), ...amount('premium', a.premium as bigint, dec(a.asset)),
          };
          break;
        case 'liquidation':
          row = {
            owner: a.user as Hex, liquidator: a.liquidator as Hex, receive_a_token: a.receiveAToken as boolean,
            ...reserve(ctx, a.debtAsset as Hex, 'debt_'), ...reserve(ctx, a.collateralAsset as Hex, 'collateral_'),
            ...amount('debt_to_cover', a.debtToCover as bigint, dec(a.debtAsset)),
            ...amount('liquidated_collateral', a.liquidatedCollateralAmount as bigint, dec(a.collateralAsset)),
          };
          break;
      }
      ctx.emit(lendingDataset(event), { ...base, ...row });
    },
  };
}
