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
import { resolveRange } from '../chain/chainRun.ts';
import { followHead } from '../chain/followHead.ts';
import { getBlockNumber, getBlocks } from '../rpc/actions.ts';
import { createEvmBackfill, type EvmBackfill } from './evmBackfill.ts';
import type { EvmIngestSummary, IngestEvmOptions } from './evmTypes.ts';
import { createLogDir } from './logFile.ts';
import { openEvmRun, type EvmRun } from './openEvmRun.ts';

export { confirmationsFor, DEFAULT_CONFIRMATIONS } from './openEvmRun.ts';
export { IngestError, type EvmIngestSummary, type IngestEvmOptions } from './evmTypes.ts';

export async function ingestEvm(store: Store, opts: IngestEvmOptions): Promise<EvmIngestSummary> {
  const t0 = performance.now();
  const run = await openEvmRun(store, opts);
  const logDir = createLogDir();
  try {
    const batches = createEvmBackfill(run, opts, logDir);
    const range = await resolveRange(opts, {
      network: run.network,
      head: run.head,
      confirmations: run.confirmations,
      resume: async () => {
        // Continue after the last block stored for the network.
        const tip = await storedTip(store, run.network, 0);
        return tip === null ? null : tip + 1;
      },
      emit: run.emit,
    });
    const stopped = opts.follow ? await follow(run, batches, range.lo, opts) : range.hi >= range.lo && (await batches.backfill(range.lo, range.hi, opts.force === true)) === 'stopped';
    const { counts } = batches;
    return {
      done: counts.blocks,
      skipped: counts.skipped,
      missing: [],
      partial: [],
      failed: [],
      rows: counts.events,
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

/**
 * Backfills from `from` to the confirmed head, then polls for new blocks until
 * the signal aborts (stopped) or `to` is reached. Each round
 * plans from `from` again: coverage skips what is stored, and what a reorg
 * rolled back is ingested again.
 */
async function follow(run: EvmRun, batches: EvmBackfill, from: number, opts: IngestEvmOptions): Promise<boolean> {
  const { store, network, rpc, signal, confirmations } = run;
  let force = opts.force === true;
  let lastCaughtUp: number | null = null;
  /** Checks the stored tip against the node, then ingests what became confirmed; false once stopped or past `to`. */
  const round = async (): Promise<boolean> => {
    try {
      const head = await getBlockNumber(rpc);
      const tip = await storedTip(store, network, from);
      if (tip !== null) {
        const [remote] = await getBlocks(rpc, [tip], false);
        const stored = (await storedBlockHashes(store, network, [tip])).get(tip);
        if (stored && remote?.hash.toLowerCase() !== stored.hash) await batches.reconcile(tip);
      }
      const safe = Math.min(head - confirmations, opts.to ?? Number.POSITIVE_INFINITY);
      if (safe >= from && (await batches.backfill(from, safe, force)) === 'stopped') return false;
      force = false;
      // Once per new safe block, not on every poll.
      if (safe !== lastCaughtUp) run.emit({ type: 'caught_up', block: safe, head });
      lastCaughtUp = safe;
      return opts.to === undefined || safe < opts.to;
    } catch (e) {
      if (signal?.aborted) return false;
      throw e;
    }
  };
  if (!signal?.aborted && (await round())) await followHead({ pollMs: opts.pollMs ?? 2_000, signal, round });
  return opts.to === undefined || signal?.aborted === true;
}
