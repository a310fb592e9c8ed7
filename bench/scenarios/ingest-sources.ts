/**
 * What the Tron adapter costs on top of the work nobody can avoid: 3,000
 * blocks ingested from a local node API (decode, base58, store, checkpoints)
 * vs. the baseline of only fetching the same blocks and transaction infos
 * over HTTP. (venue_a's figure is its own scenario, ingest-venue-a.)
 */
import path from 'node:path';
import { ingestTron } from '../../src/ingest/tron/ingestTron.ts';
import { createTronNodeClient } from '../../src/ingest/tron/nodeClient.ts';
import { loadSeed } from '../../src/reference/importReference.ts';
import { createStore } from '../../src/store/openStore.ts';
import { startSourceServer } from '../../test/helpers/sourceServer.ts';
import { TronChain, tronHandlers } from '../../test/ingest/fixtures/tron.ts';
import type { BenchContext, BenchResult } from '../types.ts';

const seconds = async (fn: () => Promise<unknown>) => {
  const t0 = performance.now();
  await fn();
  return (performance.now() - t0) / 1000;
};

export default async function run(ctx: BenchContext): Promise<BenchResult> {
  const server = await startSourceServer();
  try {
    // --- Tron -------------------------------------------------------------
    const chain = new TronChain(78_450_000, Date.UTC(2025, 11, 1));
    chain.grow(3000, 5);
    for (const [p, h] of tronHandlers(chain)) server.handlers.set(p, h);
    const http = { retry: { retries: 2, baseDelayMs: 100, maxDelayMs: 1000 } };
    const client = createTronNodeClient(server.url, http);
    const fetchOnly = await seconds(async () => {
      for (let lo = 78_450_000; lo < 78_453_000; lo += 100) {
        const blocks = await client.getBlocks(lo, lo + 99);
        await Promise.all(blocks.map((b) => client.getTransactionInfo(b.block_header.raw_data.number ?? 0)));
      }
    });
    const tronStore = await createStore({ dataDir: path.join(ctx.workDir, 'tron'), threads: 2 });
    await loadSeed(tronStore);
    let tronRows = 0;
    const tron = await seconds(async () => {
      const s = await ingestTron({ store: tronStore, api: server.url, from: 78_450_000, to: 78_452_999, confirmations: 0, http });
      tronRows = s.rows;
    });
    await tronStore.close();
    ctx.log(`tron: ${tron.toFixed(2)} s vs fetch only ${fetchOnly.toFixed(2)} s`);

    return {
      scenario: 'ingest-sources',
      figures: [
        {
          name: 'tron 3,000 blocks end to end',
          ratio: tron / fetchOnly,
          ratio_meaning: 'adapter seconds / fetching the same blocks and transaction infos (lower is better)',
          baseline: 'getblockbylimitnext + gettransactioninfobyblocknum for every block, nothing decoded or stored',
          measured: { adapter_s: Number(tron.toFixed(3)), fetch_only_s: Number(fetchOnly.toFixed(3)), rows: tronRows },
        },
      ],
      notes: [
        "Sources are local HTTP servers in the same process, so network time is near zero: the ratios show the adapters' own cost.",
        "The Tron baseline asks for every block's transaction info; the adapter skips blocks without contract calls.",
      ],
    };
  } finally {
    await server.close();
  }
}
