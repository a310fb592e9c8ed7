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
import type { AbiEvent } from 'viem';
import { scaleAmount } from '../../utils/scaleAmount.ts';
import { createEventDecoder, type EventArgs, type EventDecoder } from '../eventDecoder.ts';
import type { Hex, RpcLog } from '../evmNode.ts';
import { datasetOf } from '../protocol.ts';
import { type BridgeKind, STAKING_BRIDGE_ABI, STAKING_CONTRACT_OF, STAKING_L1_ABI, stakingEndpoints } from './catalog.ts';
import { DEFAULT_BRIDGE_KIND, L1_WSTETH, type StakingContracts } from './config.ts';
import type { DecodeContext, JsDecoder, PlanProtocol, ColumnValues } from '../types.ts';

type StakingEvent = keyof typeof STAKING_CONTRACT_OF;
type L2Event = 'l2_deposit' | 'l2_withdrawal_request';

const isStakingEvent = (event: string): event is StakingEvent => Object.hasOwn(STAKING_CONTRACT_OF, event);

/** Decoded event arguments carry addresses as `0x…` strings. */
const isHex = (v: string): v is Hex => v.startsWith('0x');

export const stakingDataset = (event: StakingEvent) => datasetOf(stakingEndpoints, event);

const submitted = createEventDecoder(STAKING_L1_ABI.deposit);
const requested = createEventDecoder(STAKING_L1_ABI.withdrawal_request);
const claimed = createEventDecoder(STAKING_L1_ABI.withdrawal_claimed);

/** Sender, receiver and token addresses of a bridge event, in the dataset's terms. */
interface BridgeFields {
  l1Token: Hex | null;
  l2Token: Hex | null;
  from: Hex;
  to: Hex;
  amount: bigint;
}

/** A bridge event of any dialect, read into the dataset's fields: each dialect names its parties its own way. */
function bridgeFields(a: EventArgs): BridgeFields | null {
  const hex = (k: string): Hex | null => {
    const v = a[k];
    return typeof v === 'string' && isHex(v) ? v : null;
  };
  const amount = a.amount;
  if (typeof amount !== 'bigint') return null;
  const from = hex('from') ?? hex('l1Sender') ?? hex('l2Sender');
  const to = hex('to') ?? hex('l2Receiver') ?? hex('l1Receiver');
  if (!from || !to) return null;
  return { l1Token: hex('l1Token'), l2Token: hex('l2Token'), from, to, amount };
}

/** Which of its staking contracts a network has configured decides which datasets it fills. */
export const planStaking: PlanProtocol<StakingContracts> = ({ network, endpoints, config }) => {
  const c = config ?? {};
  const have = endpoints.filter((e) => isStakingEvent(e.event) && !!c[STAKING_CONTRACT_OF[e.event]]).map((e) => e.id);
  const skipped = endpoints.filter((e) => !have.includes(e.id)).map((e) => ({ dataset: e.id, reason: `its staking contract is not configured for ${network}` }));
  if (have.length === 0) return { datasets: [], decoder: null, skipped };
  return { datasets: have, decoder: createStakingDecoder({ network, contracts: c, datasets: have }), skipped };
};

export interface StakingDecoderOptions {
  readonly network: string;
  readonly contracts: StakingContracts;
  /** Which dataset ids apply on this network (L1 or L2 ones). */
  readonly datasets: readonly string[];
}

/** What one network's decoder reads: its configured contracts, and the bridge events in its dialect. */
interface StakingSetup {
  readonly c: StakingContracts;
  readonly l1Wsteth: Hex;
  readonly steth: Hex | undefined;
  readonly queue: Hex | undefined;
  readonly bridge: Hex | undefined;
  /** The bridge's event decoders by selector, with the dataset event each fills. */
  readonly bridgeDecoders: ReadonlyMap<Hex, [L2Event, EventDecoder<AbiEvent>]>;
}

/** An L1 log's dataset event and, given the decoding context, its row (without the log key). */
interface L1Log {
  readonly event: StakingEvent;
  row(ctx: DecodeContext): ColumnValues;
}

export function createStakingDecoder(opts: StakingDecoderOptions): JsDecoder {
  const s = stakingSetup(opts);
  const { c, steth, queue, bridge } = s;
  return {
    protocol: 'staking',
    datasets: opts.datasets,
    topic0: [...(steth ? [submitted.selector] : []), ...(queue ? [requested.selector, claimed.selector] : []), ...s.bridgeDecoders.keys()],
    addresses: [steth, queue, bridge].filter((a): a is Hex => a !== undefined),
    tokensOf(log) {
      if (l1Log(s, log)) return c.steth ? [c.steth] : [];
      const l2 = l2Event(s, log);
      if (!l2) return [];
      return [l2[1].l2Token ?? c.wsteth].filter((a): a is Hex => !!a);
    },
    needsSender: () => false,
    decode(log, ctx) {
      const base: ColumnValues = { ...ctx.logKey(log), contract_address: log.address.toLowerCase() };
      const e1 = l1Log(s, log);
      if (e1) {
        ctx.emit(stakingDataset(e1.event), { ...base, ...e1.row(ctx) });
        return;
      }
      const e2 = l2Event(s, log);
      if (!e2) return;
      const [event, f] = e2;
      const l2Token = f.l2Token ?? c.wsteth ?? null;
      const token = l2Token ? ctx.token(l2Token) : { symbol: 'WSTETH', decimals: 18 };
      const parties = event === 'l2_deposit' ? { l1_sender: f.from, l2_receiver: f.to } : { l2_sender: f.from, l1_receiver: f.to };
      ctx.emit(stakingDataset(event), {
        ...base,
        l1_token: f.l1Token ?? s.l1Wsteth,
        l2_token: l2Token,
        ...parties,
        amount_raw: f.amount,
        amount: scaleAmount(f.amount, token.decimals),
        token: token.symbol,
      });
    },
  };
}

function stakingSetup(opts: StakingDecoderOptions): StakingSetup {
  const c = opts.contracts;
  const want = new Set(opts.datasets);
  const kind: BridgeKind = c.bridge_kind ?? DEFAULT_BRIDGE_KIND[opts.network] ?? 'optimism';
  const bridge = want.has(stakingDataset('l2_deposit')) ? c.l2_token_bridge : undefined;
  const bridgeDecoders = new Map<Hex, [L2Event, EventDecoder<AbiEvent>]>();
  if (bridge) {
    for (const event of ['l2_deposit', 'l2_withdrawal_request'] as const) {
      for (const abi of STAKING_BRIDGE_ABI[kind][event]) {
        const d = createEventDecoder<AbiEvent>(abi);
        bridgeDecoders.set(d.selector, [event, d]);
      }
    }
  }
  return {
    c,
    l1Wsteth: c.l1_wsteth ?? L1_WSTETH,
    steth: want.has(stakingDataset('deposit')) ? c.steth : undefined,
    queue: want.has(stakingDataset('withdrawal_request')) ? c.withdrawal_queue : undefined,
    bridge,
    bridgeDecoders,
  };
}

/** An L1 log of a configured contract (stETH or the withdrawal queue), or null. */
function l1Log(s: StakingSetup, log: RpcLog): L1Log | null {
  const from = log.address.toLowerCase();
  if (from === s.steth && log.topics[0] === submitted.selector) {
    const a = submitted.decode(log);
    return (
      a && {
        event: 'deposit',
        row: (ctx) => {
          const st = stethToken(s.c, ctx);
          return { sender: a.sender, referral: a.referral, minted_amount_raw: a.amount, minted_amount: scaleAmount(a.amount, st.decimals), minted_token: st.symbol };
        },
      }
    );
  }
  if (from !== s.queue) return null;
  if (log.topics[0] === requested.selector) {
    const a = requested.decode(log);
    return (
      a && {
        event: 'withdrawal_request',
        row: (ctx) => {
          const st = stethToken(s.c, ctx);
          return {
            request_id: a.requestId,
            requestor: a.requestor,
            owner: a.owner,
            burned_amount_raw: a.amountOfStETH,
            burned_amount: scaleAmount(a.amountOfStETH, st.decimals),
            // Lido shares carry 18 decimals like stETH itself.
            burned_shares_raw: a.amountOfShares,
            burned_shares: scaleAmount(a.amountOfShares, 18),
            burned_token: st.symbol,
          };
        },
      }
    );
  }
  if (log.topics[0] === claimed.selector) {
    const a = claimed.decode(log);
    return (
      a && {
        event: 'withdrawal_claimed',
        row: (ctx) => ({
          request_id: a.requestId,
          receiver: a.receiver,
          owner: a.owner,
          withdraw_amount_raw: a.amountOfETH,
          withdraw_amount: scaleAmount(a.amountOfETH, 18),
          withdraw_token: ctx.nativeSymbol,
        }),
      }
    );
  }
  return null;
}

/** A bridge log of the configured bridge and of wstETH, as its dataset event and fields; null otherwise. */
function l2Event(s: StakingSetup, log: RpcLog): [L2Event, BridgeFields] | null {
  if (log.address.toLowerCase() !== s.bridge) return null;
  const [topic0] = log.topics;
  const hit = topic0 === undefined ? undefined : s.bridgeDecoders.get(topic0);
  if (!hit) return null;
  const a = hit[1].decode(log);
  const f = a && bridgeFields(a);
  if (!f) return null;
  if (f.l2Token !== null && s.c.wsteth && f.l2Token !== s.c.wsteth) return null;
  if (f.l1Token !== null && f.l1Token !== s.l1Wsteth) return null;
  return [hit[0], f];
}

/** The stETH token's symbol and decimals, or STETH/18 when only the queue is configured. */
const stethToken = (c: StakingContracts, ctx: DecodeContext) => (c.steth ? ctx.token(c.steth) : { address: null, symbol: 'STETH', decimals: 18 });
