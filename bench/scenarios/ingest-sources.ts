/**
 * What the venue_a and Tron adapters cost on top of the work nobody can
 * avoid.
 *
 * - venue_a: one day of BTCUSDT trades (1M rows, zipped, with its
 *   .CHECKSUM), ingested end to end from a local HTTP server (download,
 *   sha256, unzip, DuckDB load, coverage) vs. the baseline of DuckDB loading
 *   the already-unzipped CSV into a table with read_csv auto-detection.
 * - Tron: 3,000 blocks ingested from a local node API (decode, base58,
 *   store, checkpoints) vs. the baseline of only fetching the same blocks and
 *   transaction infos over HTTP.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ingestTron } from '../../src/ingest/tron/ingestTron.ts';
import { createTronNodeClient } from '../../src/ingest/tron/nodeClient.ts';
import { ingestVenueA } from '../../src/ingest/venues/ingestVenueA.ts';
import { archivePath } from '../../src/ingest/venues/venueAArchive.ts';
import { loadSeed } from '../../src/reference/importReference.ts';
import { createStore } from '../../src/store/openStore.ts';
import { startSourceServer } from '../../test/helpers/sourceServer.ts';
import * as fx from '../../test/ingest/fixtures/venueA.ts';
import { TronChain, tronHandlers } from '../../test/ingest/fixtures/tron.ts';
import type { BenchContext, BenchResult } from '../types.ts';
import { engineSql } from '../../test/helpers/engineSql.ts';

const seconds = async (fn: () => Promise<unknown>) => {
  const t0 = performance.now();
  await fn();
  return (performance.now() - t0) / 1000;
};

export default async function run(ctx: BenchContext): Promise<BenchResult> {
  const server = await startSourceServer();
  try {
    // --- venue_a ----------------------------------------------------------
    const day = Date.UTC(2025, 11, 1);
    const n = 1_000_000;
    ctx.log(`building ${n.toLocaleString('en-US')} trades`);
    const csv = fx.tradesCsv('BTC', fx.trades('BTC', day, n, 1));
    const csvFile = path.join(ctx.workDir, 'BTCUSDT-trades-2025-12-01.csv');
    fs.writeFileSync(csvFile, csv);
    const { zip, checksum } = fx.zipWithChecksum('BTCUSDT-trades-2025-12-01.csv', csv);
    const rel = archivePath('trades', 'BTCUSDT', '2025-12-01');
    server.files.set(`/${rel}`, zip);
    server.files.set(`/${rel}.CHECKSUM`, Buffer.from(checksum));

    const baseStore = await createStore({ dataDir: path.join(ctx.workDir, 'base'), threads: 2 });
    const baseline = await seconds(() => engineSql(baseStore).run(`CREATE TABLE t AS SELECT * FROM read_csv($f)`, { f: csvFile }));
    await baseStore.close();
    const store = await createStore({ dataDir: path.join(ctx.workDir, 'venue_a'), threads: 2 });
    let rows = 0;
    const measured = await seconds(async () => {
      const s = await ingestVenueA({
        store,
        archive: server.url,
        tokens: ['BTC'],
        kinds: ['trades'],
        since: day,
        until: day + fx.DAY,
        http: { retry: { retries: 2, baseDelayMs: 100, maxDelayMs: 1000 } },
        now: day + 2 * fx.DAY,
      });
      rows = s.rows;
    });
    await store.close();
    ctx.log(`venue_a: ${measured.toFixed(2)} s vs read_csv ${baseline.toFixed(2)} s`);

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
          name: 'venue_a trades day (1M rows) end to end',
          ratio: measured / baseline,
          ratio_meaning: 'adapter seconds / DuckDB read_csv of the unzipped CSV (lower is better)',
          baseline: 'CREATE TABLE AS SELECT * FROM read_csv(file) on the same CSV',
          measured: { adapter_s: Number(measured.toFixed(3)), baseline_s: Number(baseline.toFixed(3)), rows, zip_bytes: zip.length, rows_per_s: Math.round(rows / measured) },
        },
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
