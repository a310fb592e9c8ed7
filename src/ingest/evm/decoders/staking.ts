/**
 * Liquid staking (Lido). On L1: stETH `Submitted` (the `deposit` dataset),
 * WithdrawalQueue `WithdrawalRequested` and `WithdrawalClaimed`. On L2s: the
 * wstETH token bridge's deposit-finalized and withdrawal-initiated events
 * (`l2_deposit`, `l2_withdrawal_request`), in the dialect the bridge speaks:
 *
 * - optimism (OP stack, also Base, Mode, Mantle, Soneium, Unichain, Zircuit):
 *   `DepositFinalized` / `WithdrawalInitiated(l1Token, l2Token, from, to, amount, data)`;
 * - arbitrum: the gateway's `DepositFinalized(l1Token, from, to, amount)` and
 *   `WithdrawalInitiated(l1Token, from, to, l2ToL1Id, exitNum, amount)`;
 * - zksync: `FinalizeDeposit(l1Sender, l2Receiver, l2Token, amount[, data])` and
 *   `WithdrawalInitiated(l2Sender, l1Receiver, l2Token, amount)`.
 *
 * Where an event does not name a token, the configured wstETH addresses stand
 * in; where it does, events of other tokens are left out.
 */
import { parseAbiItem, type AbiEvent } from 'viem';
import { DEFAULT_BRIDGE_KIND, L1_WSTETH, type BridgeKind, type StakingContracts } from '../../../reference/protocols.ts';
import { scaleAmount } from '../../../utils/scaleAmount.ts';
import type { Hex, RpcLog } from '../../rpc/getLogs.ts';
import { createEventDecoder, type EventArgs, type EventDecoder } from '../eventDecoder.ts';
import type { DecodeContext, JsDecoder, Row } from '../types.ts';

export const STAKING_L1_EVENTS = {
  deposit: parseAbiItem('event Submitted(address indexed sender, uint256 amount, address referral)'),
  withdrawal_request: parseAbiItem('event WithdrawalRequested(uint256 indexed requestId, address indexed requestor, address indexed owner, uint256 amountOfStETH, uint256 amountOfShares)'),
  withdrawal_claimed: parseAbiItem('event WithdrawalClaimed(uint256 indexed requestId, address indexed owner, address indexed receiver, uint256 amountOfETH)'),
} as const;

type L2Event = 'l2_deposit' | 'l2_withdrawal_request';

export const BRIDGE_EVENTS: Readonly<Record<BridgeKind, readonly [L2Event, AbiEvent][]>> = {
  optimism: [
    ['l2_deposit', parseAbiItem('event DepositFinalized(address indexed l1Token, address indexed l2Token, address indexed from, address to, uint256 amount, bytes data)')],
    ['l2_withdrawal_request', parseAbiItem('event WithdrawalInitiated(address indexed l1Token, address indexed l2Token, address indexed from, address to, uint256 amount, bytes data)')],
  ],
  arbitrum: [
    ['l2_deposit', parseAbiItem('event DepositFinalized(address indexed l1Token, address indexed from, address indexed to, uint256 amount)')],
    ['l2_withdrawal_request', parseAbiItem('event WithdrawalInitiated(address l1Token, address indexed from, address indexed to, uint256 indexed l2ToL1Id, uint256 exitNum, uint256 amount)')],
  ],
  zksync: [
    ['l2_deposit', parseAbiItem('event FinalizeDeposit(address indexed l1Sender, address indexed l2Receiver, address indexed l2Token, uint256 amount)')],
    ['l2_deposit', parseAbiItem('event FinalizeDeposit(address indexed l1Sender, address indexed l2Receiver, address indexed l2Token, uint256 amount, bytes data)')],
    ['l2_withdrawal_request', parseAbiItem('event WithdrawalInitiated(address indexed l2Sender, address indexed l1Receiver, address indexed l2Token, uint256 amount)')],
  ],
};

export const stakingDataset = (event: string) => `evm/staking/${event}`;

const l1 = Object.fromEntries(Object.entries(STAKING_L1_EVENTS).map(([k, e]) => [k, createEventDecoder(e)])) as Record<keyof typeof STAKING_L1_EVENTS, EventDecoder>;

/** Sender, receiver and token addresses of a bridge event, in the dataset's terms. */
interface BridgeFields { l1Token: Hex | null; l2Token: Hex | null; from: Hex; to: Hex; amount: bigint }

function bridgeFields(kind: BridgeKind, event: L2Event, a: EventArgs): BridgeFields {
  switch (kind) {
    case 'optimism':
      return { l1Token: a.l1Token as Hex, l2Token: a.l2Token as Hex, from: a.from as Hex, to: a.to as Hex, amount: a.amount as bigint };
    case 'arbitrum':
      return { l1Token: a.l1Token as Hex, l2Token: null, from: a.from as Hex, to: a.to as Hex, amount: a.amount as bigint };
    case 'zksync':
      return event === 'l2_deposit'
        ? { l1Token: null, l2Token: a.l2Token as Hex, from: a.l1Sender as Hex, to: a.l2Receiver as Hex, amount: a.amount as bigint }
        : { l1Token: null, l2Token: a.l2Token as Hex, from: a.l2Sender as Hex, to: a.l1Receiver as Hex, amount: a.amount as bigint };
  }
}

export interface StakingDecoderOptions {
  readonly network: string;
  readonly contracts: StakingContracts;
  /** Which dataset ids apply on this network (L1 or L2 ones). */
  readonly datasets: readonly string[];
}

export function createStakingDecoder(opts: StakingDecoderOptions): JsDecoder {
  const c = opts.contracts;
  const want = new Set(opts.datasets);
  const kind: BridgeKind = c.bridge_kind ?? DEFAULT_BRIDGE_KIND[opts.network] ?? 'optimism';
  const l1Wsteth = c.l1_wsteth ?? L1_WSTETH;
  const bridge = want.has(stakingDataset('l2_deposit')) ? c.l2_token_bridge : undefined;
  const bridgeDecoders = new Map<Hex, [L2Event, EventDecoder]>();
  if (bridge) for (const [event, abi] of BRIDGE_EVENTS[kind]) {
    const d = createEventDecoder(abi);
    bridgeDecoders.set(d.selector, [event, d]);
  }
  const steth = want.has(stakingDataset('deposit')) ? c.steth : undefined;
  const queue = want.has(stakingDataset('withdrawal_request')) ? c.withdrawal_queue : undefined;

  const l1Event = (log: RpcLog): [keyof typeof l1, EventArgs] | null => {
    const from = log.address.toLowerCase();
    const t0 = log.topics[0];
    const which = from === steth && t0 === l1.deposit.selector ? 'deposit'
      : from === queue && t0 === l1.withdrawal_request.selector ? 'withdrawal_request'
        : from === queue && t0 === l1.withdrawal_claimed.selector ? 'withdrawal_claimed' : null;
    if (!which) return null;
    const a = l1[which].decode(log);
    return a ? [which, a] : null;
  };

  const l2Event = (log: RpcLog): [L2Event, BridgeFields] | null => {
    if (log.address.toLowerCase() !== bridge) return null;
    const hit = bridgeDecoders.get(log.topics[0]!);
    if (!hit) return null;
    const a = hit[1].decode(log);
    if (!a) return null;
    const f = bridgeFields(kind, hit[0], a);
    if (f.l2Token !== null && c.wsteth && f.l2Token !== c.wsteth) return null;
    if (f.l1Token !== null && f.l1Token !== l1Wsteth) return null;
    return [hit[0], f];
  };

  /** The stETH token's symbol and decimals, or STETH/18 when only the queue is configured. */
  const stethToken = (ctx: DecodeContext) => (c.steth ? ctx.token(c.steth) : { address: null, symbol: 'STETH', decimals: 18 });

  return {
    protocol: 'staking',
    datasets: opts.datasets,
    topic0: [
      ...(steth ? [l1.deposit.selector] : []),
      ...(queue ? [l1.withdrawal_request.selector, l1.withdrawal_claimed.selector] : []),
      ...bridgeDecoders.keys(),
    ],
    addresses: [steth, queue, bridge].filter((a): a is Hex => a !== undefined),
    tokensOf(log) {
      if (l1Event(log)) return c.steth ? [c.steth] : [];
      const l2 = l2Event(log);
      if (!l2) return [];
      return [l2[1].l2Token ?? c.wsteth].filter((a): a is Hex => !!a);
    },
    needsSender: () => false,
    decode(log, ctx) {
      const base: Row = { ...ctx.logKey(log), contract_address: log.address.toLowerCase() };
      const e1 = l1Event(log);
      if (e1) {
        const [event, a] = e1;
        const st = stethToken(ctx);
        let row: Row;
        switch (event) {
          case 'deposit':
            row = { sender: a.sender as Hex, referral: a.referral as Hex, minted_amount_raw: a.amount as bigint, minted_amount: scaleAmount(a.amount as bigint, st.decimals), minted_token: st.symbol };
            break;
          case 'withdrawal_request':
            row = {
              request_id: a.requestId as bigint, requestor: a.requestor as Hex, owner: a.owner as Hex,
              burned_amount_raw: a.amountOfStETH as bigint, burned_amount: scaleAmount(a.amountOfStETH as bigint, st.decimals),
              // Lido shares carry 18 decimals like stETH itself.
              burned_shares_raw: a.amountOfShares as bigint, burned_shares: scaleAmount(a.amountOfShares as bigint, 18),
              burned_token: st.symbol,
            };
            break;
          case 'withdrawal_claimed':
            row = {
              request_id: a.requestId as bigint, receiver: a.receiver as Hex, owner: a.owner as Hex,
              withdraw_amount_raw: a.amountOfETH as bigint, withdraw_amount: scaleAmount(a.amountOfETH as bigint, 18), withdraw_token: ctx.nativeSymbol,
            };
            break;
        }
        ctx.emit(stakingDataset(event), { ...base, ...row });
        return;
      }
      const e2 = l2Event(log);
      if (!e2) return;
      const [event, f] = e2;
      const l2Token = f.l2Token ?? c.wsteth ?? null;
      const token = l2Token ? ctx.token(l2Token) : { symbol: 'WSTETH', decimals: 18 };
      const parties = event === 'l2_deposit' ? { l1_sender: f.from, l2_receiver: f.to } : { l2_sender: f.from, l1_receiver: f.to };
      ctx.emit(stakingDataset(event), {
        ...base, l1_token: f.l1Token ?? l1Wsteth, l2_token: l2Token, ...parties,
        amount_raw: f.amount, amount: scaleAmount(f.amount, token.decimals), token: token.symbol,
      });
    },
  };
}
