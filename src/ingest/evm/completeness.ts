/**
 * Whether eth_getLogs gave every log a block holds for the run's filter,
 * judged by what the block itself says:
 *
 * - The header's logs bloom. A block whose bloom may hold a matching log
 *   (one of the filter's topic0 and, with an address filter, one of its
 *   addresses) while eth_getLogs returned none of its logs is checked with
 *   its receipts; a bloom can say "maybe" for logs that are not there (bits
 *   shared with other logs), and only the receipts tell that false positive
 *   from logs the node left out.
 * - Receipts, where they are fetched (native transfers without traces, and
 *   the bloom's suspects): one per transaction, in order; log indices
 *   0, 1, 2, … without holes across the block; every bit of the header's
 *   bloom set by their logs; and every log matching the filter among those
 *   eth_getLogs returned for the block (by log index).
 *
 * A node that lies consistently (a bloom, receipts and logs all made to
 * agree) is not caught: that needs the receipts trie checked against the
 * header's receiptsRoot, which these checks do not do.
 */
import { hexToBytes, keccak256 } from 'viem';
import { IncompleteBlockError } from '../chain/incomplete.ts';
import type { RpcReceipt } from '../rpc/actions.ts';
import type { Hex, LogFilter, RpcLog } from '../rpc/getLogs.ts';

const BLOOM_BYTES = 256;

/** The three bloom bits of a value (an address or a topic), as byte offset and mask. */
function bloomBits(value: Hex): [number, number][] {
  const h = hexToBytes(keccak256(value));
  const out: [number, number][] = [];
  for (let i = 0; i < 6; i += 2) {
    const bit = ((h[i]! << 8) | h[i + 1]!) & 2047;
    out.push([BLOOM_BYTES - 1 - (bit >> 3), 1 << (bit & 7)]);
  }
  return out;
}

const inBloom = (bloom: Uint8Array, bits: readonly [number, number][]) => bits.every(([byte, mask]) => (bloom[byte]! & mask) !== 0);

function addToBloom(bloom: Uint8Array, value: Hex): void {
  for (const [byte, mask] of bloomBits(value)) bloom[byte]! |= mask;
}

export interface LogCheck {
  /** Whether a block with this logs bloom may hold a log the filter matches. */
  mayMatch(logsBloom: Hex): boolean;
  /** Whether the filter matches this log. */
  matches(log: Pick<RpcLog, 'address' | 'topics'>): boolean;
}

export function createLogCheck(filter: LogFilter): LogCheck {
  const topics = new Set(filter.topic0.map((t) => t.toLowerCase()));
  const addresses = filter.address ? new Set(filter.address.map((a) => a.toLowerCase())) : null;
  const topicBits = [...topics].map((t) => bloomBits(t as Hex));
  const addressBits = addresses ? [...addresses].map((a) => bloomBits(a as Hex)) : null;
  return {
    mayMatch(logsBloom) {
      const bloom = hexToBytes(logsBloom);
      if (bloom.length !== BLOOM_BYTES) return true; // no usable bloom: the receipts decide
      return topicBits.some((b) => inBloom(bloom, b)) && (addressBits === null || addressBits.some((b) => inBloom(bloom, b)));
    },
    matches(log) {
      const t0 = log.topics[0]?.toLowerCase();
      return t0 !== undefined && topics.has(t0) && (addresses === null || addresses.has(log.address.toLowerCase()));
    },
  };
}

export interface CheckedBlock {
  readonly network: string;
  readonly number: number;
  readonly txHashes: readonly Hex[];
  readonly logsBloom: Hex | undefined;
}

/**
 * The receipts are the block's whole: one per transaction of the header, in
 * its order, log indices without holes, and every bit of the header's bloom
 * set by their logs. Receipts after those of the header's transactions are
 * allowed (Polygon's state-sync receipt is of no transaction in the block);
 * their logs are returned too but not held to the index and bloom rules.
 * Returns every receipt's logs.
 */
export function checkReceipts(block: CheckedBlock, receipts: readonly (RpcReceipt | null)[]): RpcLog[] {
  const fail = (what: string) => new IncompleteBlockError(block.network, block.number, what);
  if (receipts.length < block.txHashes.length) throw fail(`${receipts.length} receipts for ${block.txHashes.length} transactions`);
  const inBlock = new Set(block.txHashes.map((h) => h.toLowerCase()));
  const logs: RpcLog[] = [];
  const extra: RpcLog[] = [];
  receipts.forEach((r, i) => {
    const tx = block.txHashes[i];
    if (!r) throw fail(`no receipt for transaction ${tx ?? `number ${i}`}`);
    if (!Array.isArray(r.logs)) throw fail(`the receipt of transaction ${r.transactionHash} has no logs field`);
    if (tx === undefined) {
      if (inBlock.has(r.transactionHash.toLowerCase())) throw fail(`receipt ${i} repeats transaction ${r.transactionHash}`);
      extra.push(...r.logs);
      return;
    }
    if (r.transactionHash.toLowerCase() !== tx.toLowerCase()) throw fail(`receipt ${i} is of transaction ${r.transactionHash}, not ${tx}`);
    for (const log of r.logs) {
      const index = Number(BigInt(log.logIndex));
      if (index !== logs.length) throw fail(`the receipt of transaction ${r.transactionHash} holds log index ${index} where ${logs.length} comes next: logs are missing`);
      logs.push(log);
    }
  });
  if (block.logsBloom !== undefined) {
    const bloom = new Uint8Array(BLOOM_BYTES);
    for (const log of [...logs, ...extra]) {
      addToBloom(bloom, log.address);
      for (const t of log.topics) addToBloom(bloom, t);
    }
    const header = hexToBytes(block.logsBloom);
    // A header bit no receipt log sets is a log the receipts lack.
    if (header.length === BLOOM_BYTES && header.some((b, i) => (b & ~bloom[i]!) !== 0)) throw fail("the receipts' logs do not make the header's logs bloom: logs are missing from them");
  }
  return [...logs, ...extra];
}

/**
 * Every log of the block's receipts that the filter matches was returned by
 * eth_getLogs (by log index). Returned logs the receipts do not hold are let
 * be: some nodes return logs of no receipt (Polygon's state-sync events), and
 * an extra log is not a gap.
 */
export function checkLogsAgainstReceipts(block: CheckedBlock, returned: readonly number[], receiptLogs: readonly RpcLog[], check: LogCheck): void {
  const want = receiptLogs.filter((l) => check.matches(l)).map((l) => Number(BigInt(l.logIndex)));
  const got = new Set(returned);
  const missing = want.filter((w) => !got.has(w));
  if (missing.length > 0) {
    throw new IncompleteBlockError(
      block.network,
      block.number,
      `eth_getLogs returned ${want.length - missing.length} of the ${want.length} matching logs its receipts hold (missing log indices ${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ', …' : ''})`,
    );
  }
}
