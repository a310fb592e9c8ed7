/**
 * `chainq ingest evm`: fills every planned EVM dataset of one network from a
 * JSON-RPC node. The EVM adapter of the block-ingestion skeleton: setup in
 * openEvmRun.ts, batches through the shared pipeline in evmBackfill.ts
 * (chain/commitInOrder.ts), and here the range a run covers.
 *
 * Backfill: the blocks of [from, to] that some planned dataset does not cover
 * are cut into batches. Several batches are fetched at once; they are decoded
 * and committed strictly in block order, each in one store operation with its
 * coverage (writeBatch.ts). Killed at any moment, a rerun fetches exactly the
 * batches that never committed.
 *
 * Follow: backfill up to head − confirmations, then poll for new blocks.
 * Before each round the stored tip's hash is compared with the node's, and
 * every batch's first parent hash with the stored block before it. On a
 * mismatch the node's chain is walked back until a block hash matches (the
 * common ancestor); everything stored above it, in every EVM dataset of the
 * network, is rolled back in one store operation and ingested again. A reorg
 * deeper than `reorgWindow` blocks stops ingestion with an error.
 */
import fs from 'node:fs';
import { storedBlockHashes, storedTip } from '../../store/chainReads.ts';
import type { Store } from '../../store/types.ts';
import { followHead } from '../chain/followHead.ts';
import { getBlockNumber, getBlocks } from '../rpc/actions.ts';
import { createEvmBackfill, type EvmBackfill } from './evmBackfill.ts';
import { IngestError, type EvmIngestSummary, type IngestEvmOptions } from './evmTypes.ts';
import { createLogDir } from './logFile.ts';
import { openEvmRun, type EvmRun } from './openEvmRun.ts';

export { confirmationsFor, DEFAULT_CONFIRMATIONS } from './openEvmRun.ts';
export { IngestError, type EvmIngestSummary, type IngestEvent, type IngestEvmOptions } from './evmTypes.ts';

export async function ingestEvm(store: Store, opts: IngestEvmOptions): Promise<EvmIngestSummary> {
  const t0 = performance.now();
  const run = await openEvmRun(store, opts);
  const logDir = createLogDir();
  try {
    const batches = createEvmBackfill(run, opts, logDir);
    const stopped = opts.follow ? await follow(run, batches, opts) : await backfillOnce(run, batches, opts);
    const { counts } = batches;
    return {
      blocks: counts.blocks,
      events: counts.events,
      batches: counts.batches,
      seconds: (performance.now() - t0) / 1000,
      stopped: stopped || run.signal?.aborted === true,
      rpc: run.rpc.stats,
      nodes: run.rpc.nodes(),
      traces: run.traces,
    };
  } finally {
    // Log files of batches never committed (a stop, a reorg, an error).
    fs.rmSync(logDir, { recursive: true, force: true });
  }
}

/** One backfill up to `to` (or the confirmed head); true when it was stopped. */
async function backfillOnce(run: EvmRun, batches: EvmBackfill, opts: IngestEvmOptions): Promise<boolean> {
  const { network, head, confirmations } = run;
  let from = opts.from;
  if (from === undefined) {
    // Continue after the last block ingested for the network, as the other chain adapters do.
    const tip = await storedTip(run.store, network, 0);
    if (tip === null) throw new IngestError(`nothing of ${network} is stored yet: give --from for the first run`);
    from = tip + 1;
  }
  const requested = opts.to ?? head - confirmations;
  if (requested > head) throw new IngestError(`--to ${requested} is beyond the node's head, block ${head}`);
  const to = Math.min(requested, head - confirmations);
  if (to < requested) run.emit({ type: 'notice', message: `stopping at block ${to}, ${confirmations} confirmations behind the head (${head}); blocks ${to + 1}–${requested} are left for later` });
  return to >= from && (await batches.backfill(from, to, opts.reingest === true)) === 'stopped';
}

/** Backfills to the confirmed head, then polls for new blocks until the signal aborts; always ends stopped. */
async function follow(run: EvmRun, batches: EvmBackfill, opts: IngestEvmOptions): Promise<true> {
  const { store, network, rpc, signal, confirmations } = run;
  const startTip = await storedTip(store, network, opts.from ?? 0);
  const from = opts.from ?? (startTip !== null ? startTip + 1 : Math.max(0, run.head - confirmations));
  let reingest = opts.reingest === true;
  let lastCaughtUp: number | null = null;
  /** Checks the stored tip against the node, then ingests what became confirmed; false once stopped. */
  const round = async (): Promise<boolean> => {
    try {
      const head = await getBlockNumber(rpc);
      const tip = await storedTip(store, network, from);
      if (tip !== null) {
        const [remote] = await getBlocks(rpc, [tip], false);
        const stored = (await storedBlockHashes(store, network, [tip])).get(tip);
        if (stored && remote?.hash.toLowerCase() !== stored.hash) await batches.reconcile(tip);
      }
      const safe = head - confirmations;
      if (safe >= from && (await batches.backfill(from, safe, reingest)) === 'stopped') return false;
      reingest = false;
      // Once per new safe block, not on every poll.
      if (safe !== lastCaughtUp) run.emit({ type: 'caught_up', block: safe, head });
      lastCaughtUp = safe;
      return true;
    } catch (e) {
      if (signal?.aborted) return false;
      throw e;
    }
  };
  if (!signal?.aborted && (await round())) await followHead({ pollMs: opts.pollIntervalMs ?? 2_000, signal, round });
  return true;
}
