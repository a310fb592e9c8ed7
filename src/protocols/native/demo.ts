/** The demo's native transfers: about one in five an internal call inside a contract transaction. */
import { amountColumns, constant, draw, LOG_KEY_VALUES, party, type ProtocolDemo } from '../demo.ts';

/** Transfers per day on each network, at scale 1. */
const RATES: Readonly<Record<string, number>> = { ETH: 40_000, ARB: 30_000, BASE: 30_000 };

export const nativeDemo: ProtocolDemo = {
  events: Object.entries(RATES).map(([network, perDay]) => ({
    event: 'transfer',
    network,
    seed: `native:${network}`,
    perDay,
    amount: { scale: 0.02, alpha: 1.05, decimals: 18 },
    columns: {
      network: LOG_KEY_VALUES.network,
      block_number: LOG_KEY_VALUES.block_number,
      tx_index: { kind: 'nested', draw: draw('int'), chance: 0.2, field: 'index' },
      trace_index: { kind: 'nested', draw: draw('int'), chance: 0.2, field: 'depth' },
      time: LOG_KEY_VALUES.time,
      tx_hash: LOG_KEY_VALUES.tx_hash,
      token: constant('ETH'),
      sender: party('sender'),
      receiver: party('receiver'),
      ...amountColumns('amount'),
    },
  })),
};
