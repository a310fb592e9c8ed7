/**
 * A protocol's demo rows, described without an engine: for each of its event
 * datasets, on which networks the demo places events, how many per day, what
 * they happen on (a token mix, a market, a pool) and, per column of the
 * dataset's table by name, how its value is drawn. The store renders the
 * description (src/store/duckdb/demo/), so a protocol's folder holds its demo
 * and the registry derives the whole demo from the protocols it lists.
 *
 * Every value is a function of the event's number and a named draw (hashes,
 * no clock, no randomness), so the demo's rows are the same on every run.
 */

/**
 * A uniform draw in [0, 1) per event, named so that each value has its own.
 * A draw is the events' own (`seed:name`), unless `shared`: then event
 * number i of every dataset drawing that name gets the same value (how the
 * first demo drew a few values; kept so that its rows stay the same).
 */
export interface Draw {
  readonly name: string;
  readonly shared?: boolean;
}

/** A token of a mix, by its symbol in the token registry: how often it is picked, and the scale of its Pareto-tailed amounts in token units. */
export interface DemoToken {
  readonly symbol: string;
  readonly weight: number;
  readonly scale: number;
}

/** A market of a lending-style protocol: its name, its contract, and its share of the network's events. */
export interface DemoMarket {
  readonly market: string;
  readonly contract: string;
  readonly share: number;
}

/** A two-token pool the demo registers (token0 is the lower address, as in a factory) and trades on; `priceOf` is the price path that values its base token in quote units. */
export interface DemoPool {
  readonly address: string;
  readonly fee: number;
  readonly base: string;
  readonly quote: string;
  readonly priceOf: string;
}

/** The event's amount: Pareto-tailed (the events' draw `amt`) with `scale` (in units, or the picked token's scale) and tail `alpha`, stored with `decimals` (a number, or the picked token's). */
export interface DemoAmount {
  readonly scale: number | 'token';
  readonly alpha: number;
  readonly decimals: number | 'token';
}

/** A trade on a pool: a Pareto-tailed amount of the base token (draw `amt`), and its worth in the quote token at the minute's price (less the pool's fee for swaps, which sell or buy the base as draw `dir` says). */
export interface DemoTrade {
  readonly pool: DemoPool;
  readonly scale: number;
  readonly alpha: number;
  readonly swap: boolean;
}

export type TokenField = 'address' | 'symbol' | 'decimals';
export type AmountPart = 'raw' | 'units';
export type LogField = 'network' | 'block_number' | 'log_index' | 'time' | 'tx_hash';

/** How one column's value is drawn. */
export type DemoValue =
  /** A field of the event's log key. */
  | { readonly kind: 'log'; readonly field: LogField }
  | { readonly kind: 'constant'; readonly value: string | number | boolean }
  /** An address playing `role`: a labelled public address about 6% of the time, else one of `among` (default 20,000) drawn Zipf-like, so they repeat. Senders and users share one pool of addresses, other roles another. */
  | { readonly kind: 'party'; readonly role: string; readonly among?: number }
  | { readonly kind: 'either'; readonly draw: Draw; readonly chance: number; readonly then: DemoValue; readonly otherwise: DemoValue }
  /** True with probability `chance`. */
  | { readonly kind: 'chance'; readonly draw: Draw; readonly chance: number }
  /** `from + span · u`, as a number or as an integer of `decimals` decimals. */
  | { readonly kind: 'uniform'; readonly draw: Draw; readonly from: number; readonly span: number; readonly decimals: number; readonly part: AmountPart }
  /** `from + step · floor(u · count)`: a value on a grid, such as a tick. */
  | { readonly kind: 'grid'; readonly draw: Draw; readonly from: number; readonly step: number; readonly count: number }
  /** Consecutive numbers from `from + 1`, in the events' order. */
  | { readonly kind: 'sequence'; readonly from: number }
  /** The registry's address of a token on the network, empty when it has none. */
  | { readonly kind: 'registryAddress'; readonly symbol: string }
  /** About `chance` of the events after a block's first are calls inside the transaction before them: `index` is the transaction's index, `depth` 1 for such a call and 0 for a transaction's own transfer. */
  | { readonly kind: 'nested'; readonly draw: Draw; readonly chance: number; readonly field: 'index' | 'depth' }
  /** The picked token, or the second one. */
  | { readonly kind: 'token'; readonly field: TokenField; readonly second?: boolean }
  /** The event's amount; `share` takes a fraction of it (integer division of the raw amount). */
  | { readonly kind: 'amount'; readonly part: AmountPart; readonly share?: { readonly times: number; readonly per: number } }
  /** The amount's worth `times` over, in the second token (the tokens' scales stand for their prices). */
  | { readonly kind: 'secondAmount'; readonly part: AmountPart; readonly times: number }
  | { readonly kind: 'market'; readonly field: 'name' | 'contract' }
  /** The trade's pool: its address, or one of its two tokens. */
  | { readonly kind: 'pool'; readonly field: 'address' }
  | { readonly kind: 'poolToken'; readonly side: 0 | 1; readonly field: TokenField }
  /** What entered the pool (negative: left it) of token `side`. */
  | { readonly kind: 'poolAmount'; readonly side: 0 | 1; readonly part: AmountPart }
  /** The pool's price of token0 in token1 after the trade: as a number, as sqrt(price in base units) · 2^96, or as a tick. */
  | { readonly kind: 'poolPrice'; readonly field: 'price' | 'sqrtX96' | 'tick' }
  /** The base token's amount times `times`, as an integer. */
  | { readonly kind: 'baseTimes'; readonly times: number }
  /** `level · (1 + swing · sin(block / period)) · (from + span · u)`: a level that drifts with the blocks, with noise. */
  | {
      readonly kind: 'wave';
      readonly level: number;
      readonly swing: number;
      readonly period: number;
      readonly draw: Draw;
      readonly from: number;
      readonly span: number;
      readonly part: AmountPart;
    };

/** The five columns of an EVM log dataset's key, each its log's. */
export const LOG_KEY_VALUES: Readonly<Record<LogField, DemoValue>> = {
  network: { kind: 'log', field: 'network' },
  block_number: { kind: 'log', field: 'block_number' },
  log_index: { kind: 'log', field: 'log_index' },
  time: { kind: 'log', field: 'time' },
  tx_hash: { kind: 'log', field: 'tx_hash' },
};

/** The demo's events of one dataset on one network. */
export interface DemoEvents {
  /** The dataset's event, as its catalog entry names it. */
  readonly event: string;
  readonly network: string;
  /** Seeds every draw of these events: their blocks, hashes and values. */
  readonly seed: string;
  /** Events per day at the demo's scale 1. */
  readonly perDay: number;
  /** A market picked per event, by its share. */
  readonly markets?: { readonly draw: Draw; readonly list: readonly DemoMarket[] };
  /** A token picked per event from those of the mix the network's registry knows, by weight; `second` picks another of the same mix. */
  readonly tokens?: { readonly draw: Draw; readonly mix: readonly DemoToken[]; readonly second?: Draw };
  readonly amount?: DemoAmount;
  readonly trade?: DemoTrade;
  /** Every column of the dataset's table, by name. */
  readonly columns: Readonly<Record<string, DemoValue>>;
}

export interface ProtocolDemo {
  readonly events: readonly DemoEvents[];
}

/** Shorthands for the descriptions. */
export const draw = (name: string): Draw => ({ name });
export const sharedDraw = (name: string): Draw => ({ name, shared: true });
export const party = (role: string, among?: number): DemoValue => (among === undefined ? { kind: 'party', role } : { kind: 'party', role, among });
export const constant = (value: string | number | boolean): DemoValue => ({ kind: 'constant', value });
export const amount = (part: AmountPart, share?: { times: number; per: number }): DemoValue => (share ? { kind: 'amount', part, share } : { kind: 'amount', part });
/** A dataset's amount columns (`<name>_raw` and `<name>`) as the event's amount. */
export const amountColumns = (name: string, share?: { times: number; per: number }): Record<string, DemoValue> => ({
  [`${name}_raw`]: amount('raw', share),
  [name]: amount('units', share),
});
/** A dataset's token columns (`<prefix>token_address`, `<prefix>token`, `<prefix>token_decimals`) as the picked token, or the second one. */
export const tokenColumns = (prefix = '', second = false): Record<string, DemoValue> => ({
  [`${prefix}token_address`]: { kind: 'token', field: 'address', second },
  [`${prefix}token`]: { kind: 'token', field: 'symbol', second },
  [`${prefix}token_decimals`]: { kind: 'token', field: 'decimals', second },
});
