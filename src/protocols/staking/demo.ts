/** The demo's liquid staking events: Lido's stETH and withdrawal queue on Ethereum, its wstETH bridges on L2s. */
import { amountColumns, constant, LOG_KEY_VALUES, party, sharedDraw, type DemoEvents, type DemoValue, type ProtocolDemo } from '../demo.ts';

const STETH = '0xae7ab96520de3a18e5e111b5eaab095312d7fe84';
const WITHDRAWAL_QUEUE = '0x889edc2edab5f40e902b864ad4d7ade8e412f9b1';
/** wstETH on Ethereum, the L1 token of every bridge. */
const WSTETH_L1 = '0x7f39c581f595b53c5cb19bd0b3f8da6c935e2ca0';
const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';
const L2_BRIDGES: Readonly<Record<string, string>> = {
  ARB: '0x07d4692291b9e30e326fd31706f686f83f331b82',
  OP: '0x8e01013243a96601a86eb3153f0d9fa4fbfb6957',
  BASE: '0xac9d11cd4d7ef6e54f14643a393f68ca014287ab',
};

/** An Ethereum event of stETH or the queue: `scale` is the Pareto scale of its amounts in ETH. */
const l1 = (event: string, seed: string, perDay: number, scale: number, columns: Readonly<Record<string, DemoValue>>): DemoEvents => ({
  event,
  network: 'ETH',
  seed,
  perDay,
  amount: { scale, alpha: 1.1, decimals: 18 },
  columns: { ...LOG_KEY_VALUES, ...columns },
});

const L1_EVENTS: readonly DemoEvents[] = [
  l1('deposit', 'stk:dep', 1500, 0.5, {
    contract_address: constant(STETH),
    sender: party('sender'),
    // Most deposits name no referral.
    referral: { kind: 'either', draw: sharedDraw('ref'), chance: 0.9, then: constant(ZERO_ADDRESS), otherwise: party('ref', 30) },
    ...amountColumns('minted_amount'),
    minted_token: constant('STETH'),
  }),
  l1('withdrawal_request', 'stk:wr', 700, 1, {
    contract_address: constant(WITHDRAWAL_QUEUE),
    request_id: { kind: 'sequence', from: 95_000 },
    requestor: party('user'),
    owner: party('user'),
    ...amountColumns('burned_amount'),
    ...amountColumns('burned_shares', { times: 85, per: 100 }),
    burned_token: constant('STETH'),
  }),
  l1('withdrawal_claimed', 'stk:wc', 600, 1, {
    contract_address: constant(WITHDRAWAL_QUEUE),
    // Claims trail requests: their ids start lower.
    request_id: { kind: 'sequence', from: 90_000 },
    receiver: party('user'),
    owner: party('user'),
    ...amountColumns('withdraw_amount'),
    withdraw_token: constant('ETH'),
  }),
];

/** Bridged wstETH each way, per day at scale 1, and the columns of its two parties. */
const L2_EVENTS: readonly (readonly [string, number, string, string])[] = [
  ['l2_deposit', 300, 'l1_sender', 'l2_receiver'],
  ['l2_withdrawal_request', 200, 'l2_sender', 'l1_receiver'],
];

export const stakingDemo: ProtocolDemo = {
  events: [
    ...L1_EVENTS,
    ...Object.entries(L2_BRIDGES).flatMap(([network, bridge]) =>
      L2_EVENTS.map(
        ([event, perDay, from, to]): DemoEvents => ({
          event,
          network,
          seed: `stk:${event}:${network}`,
          perDay,
          amount: { scale: 0.3, alpha: 1.1, decimals: 18 },
          columns: {
            ...LOG_KEY_VALUES,
            contract_address: constant(bridge),
            l1_token: constant(WSTETH_L1),
            l2_token: { kind: 'registryAddress', symbol: 'WSTETH' },
            // The demo's bridge transfers keep one address on both sides.
            [from]: party('sender'),
            [to]: party('sender'),
            ...amountColumns('amount'),
            token: constant('WSTETH'),
          },
        }),
      ),
    ),
  ],
};
