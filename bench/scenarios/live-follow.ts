/**
 * Live operation: small queries answered by a `chainq serve` while a follow
 * job inside it ingests a local anvil chain producing ≥ 2,000 ERC-20 Transfer
 * events per second (9 transactions a second of 250 events each), against
 * the same queries on the same server with no ingestion, in the same run.
 * Target: p50 and p99 ≤ 2× the quiet figures. Also reported: the events per
 * second the job ingested while producing, and its lag behind the head.
 *
 * The small query is a 10-block ERC-20 query (ARB, USDC) in JSON over the demo dataset,
 * one client, one request after another, at random places in the window.
 */
import fs from 'node:fs';
import path from 'node:path';
import { encodeFunctionData, type Abi, type Hex } from 'viem';
import { DEMO_START_BLOCKS } from '../../src/demo/generate.ts';
import { createStore } from '../../src/store/openStore.ts';
import { loadArtifacts } from '../../test/contracts/compile.ts';
import { startAnvil } from '../../test/helpers/anvil.ts';
import { spawnCli } from '../../test/helpers/cli.ts';
import { createKeyCli, startServer, timedGet } from '../lib/serverProcess.ts';
import type { BenchContext, BenchResult } from '../types.ts';
import { engineSql } from '../../test/helpers/engineSql.ts';

const PHASE_MS = 20_000;
const TX_PER_SECOND = 9;
const LOGS_PER_TX = 250;
const hex = (n: number) => `0x${n.toString(16)}`;
const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;

export default async function run(ctx: BenchContext): Promise<BenchResult> {
  const dataDir = path.join(ctx.workDir, 'data');
  fs.mkdirSync(dataDir, { recursive: true });
  ctx.log('loading the demo dataset');
  const { runCli } = await import('../../test/helpers/cli.ts');
  const demo = await runCli(['demo', '--data', dataDir, '--days', '1']);
  if (demo.code !== 0) throw new Error(demo.stderr);
  // The follow job writes ETH from anvil's chain (block 1 on): the demo's ETH blocks would look
  // like a chain the node does not hold. The queries read the demo's ARB.
  const store = await createStore({ dataDir });
  try {
    await engineSql(store).transaction(async (tx) => {
      for (const t of ['evm_erc20_transfer', 'evm_native_transfer', 'evm_dex_v3_swap', 'evm_dex_v3_deposit', 'evm_dex_v3_withdraw', 'evm_dex_v3_collect'])
        await tx.run(`DELETE FROM ${t} WHERE network = 'ETH'`);
      await tx.run(`DELETE FROM blocks WHERE network = 'ETH'`);
      await tx.run(`DELETE FROM coverage WHERE scope = 'ETH'`);
    });
  } finally {
    await store.close();
  }
  const key = createKeyCli(ctx.root, dataDir);
  const server = await startServer(ctx.root, dataDir);
  const anvil = await startAnvil({ chainId: 1 });
  try {
    const spam = loadArtifacts().LogSpammer!;
    const [sender] = await anvil.rpc<Hex[]>('eth_accounts');
    const deployed = await anvil.rpc<Hex>('eth_sendTransaction', [{ from: sender, data: spam.bytecode, gas: hex(1_000_000) }]);
    await new Promise((r) => setTimeout(r, 200));
    const contract = (await anvil.rpc<{ contractAddress: Hex }>('eth_getTransactionReceipt', [deployed])).contractAddress;

    const arb0 = DEMO_START_BLOCKS.ARB!;
    const smallQuery = () => {
      const lo = arb0 + Math.floor(Math.random() * 300_000);
      return `${server.url}/v1/evm/erc20/events/transfer?network=ARB&token=USDC&block_start=${lo}&block_end=${lo + 10}`;
    };
    const measure = async (ms: number) => {
      const times: number[] = [];
      const until = performance.now() + ms;
      while (performance.now() < until) {
        const t = await timedGet(smallQuery(), { 'x-api-key': key });
        if (t.status !== 200) throw new Error(`small query answered ${t.status}`);
        times.push(t.totalMs);
      }
      return times;
    };
    await measure(2_000); // warm-up
    ctx.log('quiet phase');
    const quiet = await measure(PHASE_MS);

    ctx.log('starting the producer and the follow job');
    let producing = true;
    let sent = 0;
    const producer = (async () => {
      let i = 0;
      while (producing) {
        const t0 = performance.now();
        // One after another: concurrent sends from one account race for the same nonce.
        for (let k = 0; k < TX_PER_SECOND; k++, i++) {
          const data = encodeFunctionData({ abi: spam.abi as Abi, functionName: 'spam', args: [BigInt(LOGS_PER_TX), BigInt(i * LOGS_PER_TX)] });
          await anvil.rpc('eth_sendTransaction', [{ from: sender, to: contract, data, gas: hex(2_000_000) }]);
        }
        sent += TX_PER_SECOND * LOGS_PER_TX;
        await new Promise((r) => setTimeout(r, Math.max(0, 1000 - (performance.now() - t0))));
      }
    })();
    const start = Number(BigInt(await anvil.rpc<Hex>('eth_blockNumber')));
    const follower = spawnCli([
      'ingest',
      'evm',
      '--network',
      'ETH',
      '--rpc',
      anvil.url,
      '--follow',
      '--from',
      String(start),
      '--confirmations',
      '0',
      '--poll-interval',
      '0.2',
      '--only',
      'erc20',
      '--data',
      dataDir,
      '--log',
    ]);
    await follower.waitFor((l) => l.event === 'caught_up', 60_000);
    ctx.log('loaded phase');
    const t0 = performance.now();
    const sent0 = sent;
    const batchesBefore = collectBatches(follower).events;
    const loaded = await measure(PHASE_MS);
    const seconds = (performance.now() - t0) / 1000;
    const ingested = collectBatches(follower).events - batchesBefore;
    const produced = sent - sent0;
    const head = Number(BigInt(await anvil.rpc<Hex>('eth_blockNumber')));
    const newest = collectBatches(follower).newest;
    producing = false;
    await producer;
    follower.child.kill('SIGINT');
    await follower.done;

    const q50 = quantile(quiet, 0.5);
    const q99 = quantile(quiet, 0.99);
    const l50 = quantile(loaded, 0.5);
    const l99 = quantile(loaded, 0.99);
    const measured = {
      quiet_p50_ms: +q50.toFixed(2),
      quiet_p99_ms: +q99.toFixed(2),
      quiet_requests: quiet.length,
      loaded_p50_ms: +l50.toFixed(2),
      loaded_p99_ms: +l99.toFixed(2),
      loaded_requests: loaded.length,
      produced_events_per_s: Math.round(produced / seconds),
      ingested_events_per_s: Math.round(ingested / seconds),
      lag_blocks_at_end: head - newest,
    };
    return {
      scenario: 'live-follow',
      figures: [
        {
          name: 'small query p50 while following ≥2,000 events/s',
          ratio: l50 / q50,
          ratio_meaning: 'loaded p50 / quiet p50',
          baseline: 'the same queries on the same server, no ingestion',
          target: '<= 2',
          measured,
        },
        {
          name: 'small query p99 while following ≥2,000 events/s',
          ratio: l99 / q99,
          ratio_meaning: 'loaded p99 / quiet p99',
          baseline: 'the same queries on the same server, no ingestion',
          target: '<= 2',
          measured,
        },
        {
          name: 'follow job keeps up',
          ratio: ingested / Math.max(1, produced),
          ratio_meaning: 'events ingested / events produced during the loaded phase',
          baseline: 'events the producer sent',
          measured,
        },
      ],
      notes: [
        `The follow job runs inside the server (sent there by \`chainq ingest evm --follow\`), with --only erc20 and --confirmations 0; the producer sends ${TX_PER_SECOND} transactions a second of ${LOGS_PER_TX} Transfer events each to anvil (automine).`,
        "The small queries read the demo's ARB transfers; the demo's ETH data is removed first, since the job writes ETH from anvil's own chain.",
      ],
    };
  } finally {
    await server.stop();
    await anvil.stop();
  }
}

/** Sums the `batch` log lines the attached follower has printed so far. */
function collectBatches(follower: ReturnType<typeof spawnCli>): { events: number; newest: number } {
  let events = 0;
  let newest = 0;
  for (const l of follower.logs) {
    if (l.event !== 'batch') continue;
    events += Number(l.events);
    newest = Math.max(newest, Number(l.hi));
  }
  return { events, newest };
}
