/**
 * Several nodes per chain: EVM ingestion over two nodes ÷ over one node of
 * the same speed. Target: ≥ 1.6.
 *
 * The node must be the bottleneck, not the store: each node is an anvil
 * behind a proxy that serves one request at a time and adds a fixed latency
 * to each (test/helpers/faultyProxy.ts, `serial`), i.e. a node of fixed
 * throughput, as a rate-limited provider is. The chain is light (a few
 * Transfer events per block, erc20 only) and requests are small (2 calls per
 * JSON-RPC batch, 5 blocks per eth_getLogs), so that most of a run is spent
 * waiting on the node. The two nodes are two anvil
 * processes holding the same chain (the second loads the first's
 * anvil_dumpState), each behind its own proxy of the same pace. Each variant
 * runs twice and keeps its faster time.
 */
import path from 'node:path';
import { encodeFunctionData, type Abi, type Hex } from 'viem';
import { ingestEvm } from '../../src/ingest/evm/ingestEvm.ts';
import { loadSeed } from '../../src/reference/importReference.ts';
import { createStore } from '../../src/store/openStore.ts';
import { loadArtifacts } from '../../test/contracts/compile.ts';
import { startAnvil, type Anvil } from '../../test/helpers/anvil.ts';
import { startFaultyProxy, type FaultyProxy } from '../../test/helpers/faultyProxy.ts';
import type { BenchContext, BenchResult } from '../types.ts';

const BLOCKS = 600;
const LOGS_PER_BLOCK = 4;
const LATENCY_MS = 25;
const BATCH_BLOCKS = 20;
/** Calls per JSON-RPC batch and blocks per eth_getLogs: small, as rate-limited providers want them, so that a batch of blocks is many requests. */
const RPC_BATCH = 2;
const GET_LOGS_RANGE = 5;
const hex = (n: number) => `0x${n.toString(16)}`;

async function buildChain(anvil: Anvil): Promise<{ from: number; to: number }> {
  const spam = loadArtifacts().LogSpammer;
  if (!spam) throw new Error('the LogSpammer contract is missing from test/contracts/artifacts.json');
  const [sender] = await anvil.rpc<Hex[]>('eth_accounts');
  const deployed = await anvil.rpc<Hex>('eth_sendTransaction', [{ from: sender, data: spam.bytecode, gas: hex(1_000_000) }]);
  const receipt = await anvil.rpc<{ contractAddress: Hex }>('eth_getTransactionReceipt', [deployed]);
  const from = Number(BigInt(await anvil.rpc<Hex>('eth_blockNumber'))) + 1;
  for (let i = 0; i < BLOCKS; i++) {
    const data = encodeFunctionData({ abi: spam.abi as Abi, functionName: 'spam', args: [BigInt(LOGS_PER_BLOCK), BigInt(i * LOGS_PER_BLOCK)] });
    await anvil.rpc<Hex>('eth_sendTransaction', [{ from: sender, to: receipt.contractAddress, data, gas: hex(1_000_000) }]);
  }
  return { from, to: Number(BigInt(await anvil.rpc<Hex>('eth_blockNumber'))) };
}

async function timedRun(ctx: BenchContext, name: string, urls: string[], from: number, to: number): Promise<{ seconds: number; events: number; requests: number }> {
  const store = await createStore({ dataDir: path.join(ctx.workDir, name), threads: 1 });
  try {
    await loadSeed(store);
    const t0 = performance.now();
    const s = await ingestEvm(store, {
      network: 'ETH',
      rpcUrl: urls,
      from,
      to,
      confirmations: 0,
      only: ['erc20'],
      batchBlocks: BATCH_BLOCKS,
      concurrency: 4,
      rpcBatchSize: RPC_BATCH,
      getLogsRange: GET_LOGS_RANGE,
    });
    return { seconds: (performance.now() - t0) / 1000, events: s.rows, requests: s.rpc.httpRequests };
  } finally {
    await store.close();
  }
}

export default async function run(ctx: BenchContext): Promise<BenchResult> {
  const first = await startAnvil({ chainId: 1 });
  let second: Anvil | null = null;
  const proxies: FaultyProxy[] = [];
  try {
    ctx.log(`building ${BLOCKS} blocks`);
    const { from, to } = await buildChain(first);
    second = await startAnvil({ chainId: 1 });
    await second.rpc('anvil_loadState', [await first.rpc<string>('anvil_dumpState')]);
    const pace = { latencyMs: LATENCY_MS, serial: true };
    const a = await startFaultyProxy(first.url, () => null, pace);
    const b = await startFaultyProxy(second.url, () => null, pace);
    proxies.push(a, b);

    const best = async (name: string, urls: string[]) => {
      const runs = [];
      for (let i = 0; i < 2; i++) {
        const before = b.requests.length;
        const r = await timedRun(ctx, `${name}-${i}`, urls, from, to);
        const servedBySecond = b.requests.length - before;
        ctx.log(`${name} run ${i + 1}: ${r.seconds.toFixed(2)} s, ${r.events} events, ${r.requests} requests, ${servedBySecond} of them by the second node`);
        runs.push({ ...r, servedBySecond });
      }
      return runs.reduce((x, y) => (y.seconds < x.seconds ? y : x));
    };
    const one = await best('one-node', [a.url]);
    const two = await best('two-nodes', [a.url, b.url]);
    if (one.events !== two.events) throw new Error(`the runs stored different event counts: ${one.events} and ${two.events}`);
    return {
      scenario: 'ingest-nodes',
      figures: [
        {
          name: `evm erc20 ${to - from + 1} blocks over two nodes of equal speed`,
          ratio: one.seconds / two.seconds,
          ratio_meaning: 'one-node seconds / two-node seconds (higher is better)',
          baseline: 'the same ingestion over one of the two nodes',
          target: '>= 1.6',
          measured: {
            one_node_s: Number(one.seconds.toFixed(3)),
            two_nodes_s: Number(two.seconds.toFixed(3)),
            events: two.events,
            http_requests_one_node: one.requests,
            http_requests_two_nodes: two.requests,
            node_latency_ms: LATENCY_MS,
            two_nodes_requests_served_by_second: two.servedBySecond,
          },
        },
      ],
      notes: [
        `Each node serves one request at a time with ${LATENCY_MS} ms added (a node of fixed throughput); batches of ${BATCH_BLOCKS} blocks, 4 batches fetched at once, ${RPC_BATCH} calls per JSON-RPC batch, ${GET_LOGS_RANGE} blocks per eth_getLogs, erc20 only.`,
        "The second node is a second anvil process loaded from the first one's anvil_dumpState: same blocks, hashes and logs.",
      ],
    };
  } finally {
    for (const p of proxies) await p.close();
    await first.stop();
    await second?.stop();
  }
}
