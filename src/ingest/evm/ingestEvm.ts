/**
 * `chainq ingest evm`: fills every planned EVM dataset of one network from a
 * JSON-RPC node. The EVM adapter of the block-ingestion skeleton: the run
 * itself (the blocks chosen, the follow rounds, the events) is
 * chain/runChain.ts's, as for Tron and Bitcoin; setup is in openEvmRun.ts,
 * batches go through the shared pipeline in evmBackfill.ts
 * (chain/commitInOrder.ts), and here is what the run asks of an EVM node.
 *
 * Backfill: the blocks of [from, to] that some planned dataset does not cover
 * are cut into batches. Several batches are fetched at once; they are decoded
 * and committed strictly in block order, each in one store operation with its
 * coverage (writeBatch.ts). Killed at any moment, a rerun fetches exactly the
 * batches that never committed.
 *
 * Follow: backfill up to head − confirmations, then poll for new blocks.
 * Before each round the stored tip's hash is compared with the node's
 * (reconcileTip), and
 * every batch's first parent hash with the stored block before it. On a
 * mismatch the node's chain is walked back until a block hash matches (the
 * common ancestor); everything stored above it, in every EVM dataset of the
 * network, is rolled back in one store operation and ingested again. A reorg
 * deeper than `reorgWindow` blocks stops ingestion with an error.
 */
import fs from 'node:fs';
import { storedBlockHashes, storedTip } from '../../store/chainReads.ts';
import type { Store } from '../../store/types.ts';
import { runChain } from '../chain/runChain.ts';
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
    const { counts } = batches;
    const summary = await runChain(
      {
        network: run.network,
        confirmations: run.confirmations,
        pollMs: opts.pollMs ?? 2_000,
        datasets: run.plan.datasets,
        skipped: run.plan.skipped,
        traceSource: run.traces === false ? false : run.traceSource,
        head: run.head,
        getHead: () => getBlockNumber(run.rpc),
        resume: async () => {
          // Continue after the last block stored for the network.
          const tip = await storedTip(store, run.network, 0);
          return tip === null ? null : tip + 1;
        },
        ingest: (from, to, force) => batches.backfill(from, to, force),
        reconcile: (from) => reconcileTip(run, batches, from),
        counts: () => ({ done: counts.blocks, skipped: counts.skipped, rows: counts.events, batches: counts.batches }),
        nodes: () => run.rpc.nodes(),
        rpc: () => run.rpc.stats,
        traces: run.traces,
      },
      opts,
      t0,
    );
    return { ...summary, rpc: run.rpc.stats };
  } finally {
    // Log files of batches never committed (a stop, a reorg, an error).
    fs.rmSync(logDir, { recursive: true, force: true });
  }
}

/** Compares the newest stored block at or above `from` with the node's block at that height; on a mismatch, rolls back to the common ancestor. */
async function reconcileTip(run: EvmRun, batches: EvmBackfill, from: number): Promise<void> {
  const tip = await storedTip(run.store, run.network, from);
  if (tip === null) return;
  const [remote] = await getBlocks(run.rpc, [tip], false);
  const stored = (await storedBlockHashes(run.store, run.network, [tip])).get(tip);
  if (stored && remote?.hash.toLowerCase() !== stored.hash) await batches.reconcile(tip);
}
