/**
 * Commit-to-client latency of live streams (bench/scenarios/streams.ts): a
 * server in this process, as `chainq serve` runs ingestion inside itself,
 * publishes one new ETH block of USDT transfers at a time through the store's
 * write contract (`store.chain.publish`, what ingestion calls); stream
 * clients in a process of their own (sseFollowers.mjs) note when each block's
 * `rows` event arrives. A block's latency at one client is its arrival there
 * minus the moment its publish returned (one machine, one clock).
 */
import { spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { catalog } from '../../src/catalog/index.ts';
import { DEMO_START, DEMO_START_BLOCKS } from '../../src/demo/generate.ts';
import { resolveTokenSymbol } from '../../src/query/resolve.ts';
import { createApp } from '../../src/server/createApp.ts';
import { canonicalHash, chainMark } from '../../src/store/chainLog.ts';
import type { Store, TableRow } from '../../src/store/types.ts';

const STREAM = '/v1/evm/erc20/events/transfer/stream?network=ETH&token=USDT';
const RAW = '/v1/evm/erc20/events/transfer?network=ETH&token=USDT&format=json';
const DATASET = 'evm/erc20/transfer';
const ETH = DEMO_START_BLOCKS.ETH ?? 0;
const now = () => performance.timeOrigin + performance.now();
const hashOf = (n: number) => `0x${n.toString(16).padStart(64, 'b')}`;

export interface LatencyRound {
  readonly followers: number;
  /** Milliseconds from publish to arrival, one per block per client. */
  readonly latencies: number[];
  /** Deliveries missing at the end (a block some client never got). */
  readonly missing: number;
}

interface Followers {
  readonly ready: number;
  /** Ends the child at once (a round that failed). */
  kill(): void;
  stop(): Promise<{ arrivals: [number, number, number][]; refused: number }>;
}

async function startFollowers(root: string, url: string, key: string, n: number): Promise<Followers> {
  const child = spawn(process.execPath, [path.join(root, 'bench/lib/sseFollowers.mjs'), url, key, String(n)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const first = await lines.next();
  const ready = Number(/^ready (\d+)/.exec(String(first.value))?.[1] ?? 0);
  return {
    ready,
    kill: () => child.kill(),
    async stop() {
      child.stdin.end();
      const report = await lines.next();
      return JSON.parse(String(report.value)) as { arrivals: [number, number, number][]; refused: number };
    },
  };
}

/** The erc20 transfer table's row for one transfer, columns in table order; the other columns' values from `template`. */
function rowMaker(template: Readonly<Record<string, unknown>>): (block: number, index: number, time: string) => TableRow {
  const endpoint = catalog.find((e) => e.id === DATASET);
  if (!endpoint || !('table' in endpoint)) throw new Error(`no table for ${DATASET}`);
  const columns = endpoint.table.columns.map((c) => c.name);
  return (block, index, time) =>
    columns.map((name) => {
      switch (name) {
        case 'network':
          return 'ETH';
        case 'block_number':
          return block;
        case 'log_index':
          return index;
        case 'time':
          return time;
        case 'tx_hash':
          return `0x${(block * 1000 + index).toString(16).padStart(64, 'c')}`;
        case 'amount_raw':
          return String(1_000_000 + index);
        case 'amount':
          return 1 + index / 1e6;
        default: {
          const v = template[name];
          if (typeof v !== 'string' && typeof v !== 'number') throw new Error(`the template row has no ${name}`);
          return v;
        }
      }
    });
}

/**
 * Rounds of `blocksPerRound` published blocks, `gapMs` apart, each round
 * with the given number of connected followers (alternate the counts to
 * compare them on the same machine moments).
 */
export async function measureCommitToClient(
  root: string,
  store: Store,
  key: string,
  rounds: readonly number[],
  blocksPerRound: number,
  gapMs: number,
  log: (m: string) => void,
): Promise<LatencyRound[]> {
  const app = await createApp({ store });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  try {
    let head = (await chainMark(store, 'ETH')).newest ?? 0;
    let parent = (await canonicalHash(store, 'ETH', head)) ?? hashOf(head);
    const sample = await app.inject({ method: 'GET', url: `${RAW}&block_start=${Math.max(ETH, head - 999)}&block_end=${head}`, headers: { 'x-api-key': key } });
    const stored = sample.json<{ events: Record<string, unknown>[] }>().events[0];
    if (!stored) throw new Error(`no USDT transfer near block ${head} to copy: ${sample.body.slice(0, 300)}`);
    const usdt = await resolveTokenSymbol(store, 'ETH', 'USDT');
    const makeRow = rowMaker({ ...stored, token_address: usdt.addresses[0], token: usdt.symbol, token_decimals: usdt.decimals });
    const out: LatencyRound[] = [];
    for (const n of rounds) {
      const followers = await startFollowers(root, `${base}${STREAM}&block_start=${head + 1}`, key, n);
      const committed = new Map<number, number>();
      let arrivals: [number, number, number][] | null = null;
      try {
        if (followers.ready < n) throw new Error(`only ${followers.ready} of ${n} followers connected`);
        // Each follower's first look at the store happens as it connects.
        await new Promise((r) => setTimeout(r, 1_000));
        for (let i = 0; i < blocksPerRound; i++) {
          const block = head + 1;
          const time = new Date(DEMO_START + (block - ETH) * 12_000).toISOString().replace('T', ' ').replace('Z', '');
          const hash = hashOf(block);
          const rows = [0, 1, 2].map((k) => makeRow(block, k, time));
          await store.chain.publish({
            network: 'ETH',
            lo: block,
            hi: block,
            parentHash: parent,
            blocks: [{ number: block, time, hash, parentHash: parent }],
            tables: [{ table: 'evm_erc20_transfer', rows }],
            covers: [DATASET],
            uncovers: [],
          });
          committed.set(block, now());
          head = block;
          parent = hash;
          await new Promise((r) => setTimeout(r, gapMs));
        }
        await new Promise((r) => setTimeout(r, 3_000));
        ({ arrivals } = await followers.stop());
      } finally {
        // A round that failed leaves no child behind.
        if (arrivals === null) followers.kill();
      }
      const latencies = arrivals.flatMap(([, block, at]) => {
        const t = committed.get(block);
        return t === undefined ? [] : [at - t];
      });
      const missing = n * blocksPerRound - latencies.length;
      const per = new Map<number, number>();
      for (const [, block] of arrivals) per.set(block, (per.get(block) ?? 0) + 1);
      const short = [...committed.keys()].filter((b) => (per.get(b) ?? 0) < n).map((b) => `${b}:${per.get(b) ?? 0}`);
      const sorted = [...latencies].sort((a, b) => a - b);
      log(
        `${n} follower(s): ${latencies.length} deliveries, ${missing} missing${short.length ? ` (blocks:count ${short.join(' ')})` : ''}; p50 ${sorted[Math.floor(sorted.length / 2)]?.toFixed(1)} ms, max ${sorted.at(-1)?.toFixed(1)} ms`,
      );
      out.push({ followers: n, latencies, missing });
    }
    return out;
  } finally {
    await app.close();
  }
}
