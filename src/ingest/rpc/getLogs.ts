/**
 * `eth_getLogs` over any block range, in requests the node accepts.
 *
 * Nodes cap the blocks or results of one call and say so in many dialects.
 * @ponder/utils' getLogsRetryHelper reads those texts: when the node names a
 * range that works, that range is adopted for good ("confirmed"); otherwise
 * the range is halved. After each accepted call an unconfirmed range grows
 * again (×1.5 while answers are small, ×1.05 otherwise), so that one bad
 * stretch of blocks does not slow the rest of the run. The state is shared by
 * every caller of one fetcher: one fetcher per node and filter shape.
 */
import { getLogsRetryHelper, type GetLogsRetryHelperParameters } from '@ponder/utils';
import type { ArraySink, Rpc } from './createRpc.ts';
import { asHelperError, RpcError } from './errors.ts';
import type { Hex, RpcLog } from '../../protocols/evmNode.ts';

export type { Hex, RpcLog };

/** The helper's view of our eth_getLogs parameters (it reads only the block range). */
type HelperParams = GetLogsRetryHelperParameters['params'][0];

export interface LogFilter {
  /** Contract addresses, or undefined for any contract. */
  readonly address?: readonly Hex[];
  /** topic0 alternatives (one pass for every dataset). */
  readonly topic0: readonly Hex[];
}

export interface LogFetcherOptions {
  /** Blocks per call to start with. */
  readonly initialRange?: number;
  /** Never ask for more blocks than this in one call. */
  readonly maxRange?: number;
  /** A fixed range: no adaptation (the operator knows the node's limit). */
  readonly fixedRange?: number;
}

/**
 * Where answers go: each eth_getLogs call (each attempt of one) opens a page,
 * to which the contents of the answer's array are written as the node sent
 * them; pages are opened in block order within one address chunk.
 */
export interface LogSink {
  page(): ArraySink;
}

export interface LogFetcher {
  /** Every matching log of [from, to], in block and log order. */
  fetch(from: number, to: number): Promise<RpcLog[]>;
  /** Every matching log of [from, to], streamed into `sink` (not sorted across address chunks). */
  fetchInto(from: number, to: number, sink: LogSink): Promise<void>;
  /** The range the next call would use. */
  readonly range: number;
  readonly calls: number;
}

const toHex = (n: number): Hex => `0x${n.toString(16)}`;
/** Addresses per call: providers limit the address list (Ponder uses 50). */
const ADDRESS_CHUNK = 50;
/** An answer below this size lets the range grow fast (about 2,000 logs). */
const SMALL_ANSWER_BYTES = 1_000_000;

export function createLogFetcher(rpc: Rpc, filter: LogFilter, opts: LogFetcherOptions = {}): LogFetcher {
  const maxRange = opts.fixedRange ?? opts.maxRange ?? 100_000;
  let estimated = opts.fixedRange ?? opts.initialRange ?? 2_000;
  let confirmed = opts.fixedRange !== undefined;
  let calls = 0;
  const addressChunks: (readonly Hex[] | undefined)[] = [];
  if (filter.address === undefined) addressChunks.push(undefined);
  else for (let i = 0; i < filter.address.length; i += ADDRESS_CHUNK) addressChunks.push(filter.address.slice(i, i + ADDRESS_CHUNK));

  async function call(from: number, to: number, address: readonly Hex[] | undefined, sink: LogSink): Promise<void> {
    // No trailing null topics: many providers break on them.
    const params = {
      ...(address === undefined ? {} : { address: address.length === 1 ? address[0] : address }),
      topics: [filter.topic0.length === 1 ? filter.topic0[0] : filter.topic0],
      fromBlock: toHex(from),
      toBlock: toHex(to),
    };
    calls++;
    try {
      const bytes = await rpc.requestArrayInto('eth_getLogs', [params], () => sink.page());
      if (!confirmed) estimated = Math.min(maxRange, Math.max(estimated, Math.ceil((to - from + 1) * (bytes < SMALL_ANSWER_BYTES ? 1.5 : 1.05))));
    } catch (e) {
      if (!(e instanceof RpcError) || opts.fixedRange !== undefined) throw e;
      const advice = getLogsRetryHelper({ params: [params as HelperParams], error: asHelperError(e) });
      if (!advice.shouldRetry) {
        // The helper will not split a range it already suggested (some hints are one block too
        // generous): if the same error would split a wider range, it is a range error, so halve.
        const wider = getLogsRetryHelper({ params: [{ ...params, toBlock: toHex(to + (to - from) + 1) } as HelperParams], error: asHelperError(e) });
        if (to === from || !wider.shouldRetry) throw e;
        // A refused suggestion means the limit is just below it; otherwise halve.
        estimated = confirmed ? to - from : Math.max(1, Math.floor((to - from + 1) / 2));
        for (let lo = from; lo <= to; lo += estimated) await call(lo, Math.min(to, lo + estimated - 1), address, sink);
        return;
      }
      const first = advice.ranges[0]!;
      const size = Number(BigInt(first.toBlock) - BigInt(first.fromBlock)) + 1;
      if (advice.isSuggestedRange) {
        estimated = size;
        confirmed = true;
      } else estimated = Math.max(1, Math.min(estimated, size));
      for (const r of advice.ranges) await call(Number(BigInt(r.fromBlock)), Number(BigInt(r.toBlock)), address, sink);
    }
  }

  async function fetchInto(from: number, to: number, sink: LogSink): Promise<void> {
    for (const address of addressChunks) {
      let lo = from;
      while (lo <= to) {
        const hi = Math.min(to, lo + estimated - 1);
        await call(lo, hi, address, sink);
        lo = hi + 1;
      }
    }
  }

  return {
    get range() {
      return estimated;
    },
    get calls() {
      return calls;
    },
    fetchInto,
    async fetch(from, to) {
      const pages: Buffer[][] = [];
      await fetchInto(from, to, {
        page() {
          const chunks: Buffer[] = [];
          pages.push(chunks);
          return {
            write: (b) => {
              chunks.push(b);
            },
            abort: () => {
              chunks.length = 0;
            },
          };
        },
      });
      const out: RpcLog[] = [];
      for (const chunks of pages) {
        if (chunks.length === 0) continue;
        for (const l of JSON.parse(`[${Buffer.concat(chunks).toString('utf8')}]`) as RpcLog[]) out.push(l);
      }
      if (addressChunks.length > 1) out.sort(compareLogs);
      return out;
    },
  };
}

export function compareLogs(a: RpcLog, b: RpcLog): number {
  const d = Number(BigInt(a.blockNumber) - BigInt(b.blockNumber));
  return d !== 0 ? d : Number(BigInt(a.logIndex) - BigInt(b.logIndex));
}
