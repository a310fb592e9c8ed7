/**
 * Exact metering across a crash: `kill -9` of a server under a load of 32
 * clients, small queries (charged ahead) and large ones (charged at the end of
 * the stream), then a restart on the same data. The blocks charged are
 * exactly the `X-Request-Cost` of the responses that arrived whole: none is
 * lost, and no request cut off by the kill is billed. The one exception is the
 * instant docs/metering.md names: a kill that lands after a charge was made
 * durable (the journal's flush, Redis's reply) and before its response's last
 * bytes left charges that response. That instant is short (under a
 * millisecond on a quiet machine), but a flush of several ms on a disk shared
 * with busy writers, or an event loop slow to read Redis's reply on a loaded
 * machine, widens it. On the embedded ledger the instant is the journal's
 * flush, and on a loaded machine several confirmations can pass before the
 * first of their bodies is handed over (see the test for the bound; the code
 * before pending charges failed every time, by a dozen small queries). On Redis it is the event
 * loop's delay in reading Redis's reply, which under this load is
 * milliseconds: two or three small queries in most runs, so that half checks
 * only the bound (see there).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../src/metering/keys.ts';
import { createDemoStore, SMALL_COST, SMALL_QUERY, spawnServer, writePlansFile, type ServerProcess } from '../helpers/metered.ts';
import { redisAvailable, startRedis, type RedisServer } from '../helpers/redis.ts';

const CLIENTS = 32;
const BUDGET = 100_000_000;
/** 1,000 ETH blocks: heavy lane, streamed, charged once the stream is produced. */
const LARGE_QUERY = '/v1/evm/erc20/events/transfer?network=ETH&token=USDC&block_start=23910000&block_end=23911000';
const LARGE_COST = 1000;
/** Most clients cycle through small queries (charged ahead), in one piece (JSON) and streamed (CSV)… */
const SMALL_MIX: readonly Query[] = [
  { url: SMALL_QUERY, json: true, cost: SMALL_COST },
  { url: SMALL_QUERY, json: true, cost: SMALL_COST },
  { url: `${SMALL_QUERY}&format=csv`, json: false, cost: SMALL_COST },
];
/** …and the others through large ones, streamed and charged at the end of the stream. */
const LARGE_MIX: readonly Query[] = [
  { url: LARGE_QUERY, json: true, cost: LARGE_COST },
  { url: `${LARGE_QUERY}&format=csv`, json: false, cost: LARGE_COST },
];
const LARGE_CLIENTS = 8;

interface Query {
  readonly url: string;
  readonly json: boolean;
  readonly cost: number;
}

interface LoadResult {
  /** Blocks in `X-Request-Cost` of the responses whose bodies arrived whole. */
  readonly receivedBlocks: number;
  readonly received: number;
  /** Requests the kill cut off (sent, no whole body). */
  readonly cut: number;
  /** What the requests the kill cut off would have cost. */
  readonly cutBlocks: number;
  /** The costs of the requests the kill cut off. */
  readonly cutCosts: ReadonlySet<number>;
  /** Small requests (charged ahead) the kill cut off. */
  readonly cutSmall: number;
}

/**
 * Keeps CLIENTS requests in flight until `killAfter` responses arrived whole,
 * then kills the server with SIGKILL a moment later (so that the kill lands
 * amid requests at every stage), and lets every client see how its request ended.
 */
async function loadThenKill(server: ServerProcess, key: string, killAfter: number): Promise<LoadResult> {
  let receivedBlocks = 0;
  let received = 0;
  let cut = 0;
  let cutBlocks = 0;
  let cutSmall = 0;
  const cutCosts = new Set<number>();
  let killed = false;
  const kill = () => {
    if (killed) return;
    killed = true;
    server.proc.kill('SIGKILL');
  };
  const client = async (n: number) => {
    const mix = n < LARGE_CLIENTS ? LARGE_MIX : SMALL_MIX;
    for (let i = n; !killed; i++) {
      const q = mix[i % mix.length]!;
      let status = 0;
      let cost = 0;
      let body: string;
      try {
        const r = await fetch(`${server.url}${q.url}`, { headers: { 'x-api-key': key } });
        status = r.status;
        cost = Number(r.headers.get('x-request-cost'));
        // Resolves only once the body arrived to its end (a cut-off stream rejects).
        body = await r.text();
      } catch (e) {
        if (!killed) throw e;
        cut++;
        cutBlocks += q.cost;
        cutCosts.add(q.cost);
        if (q.cost === SMALL_COST) cutSmall++;
        continue;
      }
      if (status !== 200) throw new Error(`unexpected ${status}: ${body}`);
      if (q.json) JSON.parse(body);
      else expect(body.endsWith('\n')).toBe(true);
      receivedBlocks += cost;
      received++;
      if (received === killAfter) setTimeout(kill, Math.floor(Math.random() * 15));
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, (_, n) => client(n)));
  await server.stop();
  return { receivedBlocks, received, cut, cutBlocks, cutCosts, cutSmall };
}

/** The key's blocks charged this month, as a restarted server reads them from its ledger. */
async function chargedAfterRestart(args: readonly string[], key: string, holdsLeft: boolean): Promise<number> {
  const again = await spawnServer(args);
  try {
    const r = await fetch(`${again.url}/v1/usage`, { headers: { 'x-api-key': key } });
    expect(r.status).toBe(200);
    const usage = (await r.json()) as { blocks_used: number; blocks_left: number };
    // In Redis the killed server's holds stay reserved until they expire (docs/metering.md); in memory they died with it.
    if (!holdsLeft) expect(usage.blocks_left).toBe(BUDGET - usage.blocks_used);
    return usage.blocks_used;
  } finally {
    await again.stop();
  }
}

describe('kill -9 under load, then a restart', () => {
  let dir: string;
  const keys: string[] = [];
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-crash-'));
    const store = await createDemoStore(dir);
    writePlansFile(dir, { big: { requests_per_minute: null, monthly_blocks: BUDGET } });
    for (let i = 0; i < 2; i++) keys.push((await createKey(store, { plan: 'big' })).key);
    await store.close();
  });
  afterAll(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('embedded: the blocks charged are exactly the X-Request-Cost of the responses that arrived whole', async () => {
    const key = keys[0]!;
    const server = await spawnServer(['--data', dir]);
    const load = await loadThenKill(server, key, 400);
    expect(server.proc.signalCode).toBe('SIGKILL');
    expect(load.cut).toBeGreaterThan(0);
    // Exact but for one instant (docs/metering.md): a kill that lands after a charge's durable
    // confirmation and before its body's hand-over charges that request. Each confirmation is a
    // synchronous journal write, and on a loaded event loop several requests can pass theirs
    // before the first of them hands its body over (a CI run saw four small queries in that
    // instant). So the excess is made of cut-off requests only, and of a few of them: the
    // cost of one or two cut-off requests, or small queries up to a third of those cut off.
    // Charged ahead without a confirmation, every small request in flight was charged (the
    // code before pending charges: 12 to 15 of some 24 cut off), which this still refuses.
    const excess = (await chargedAfterRestart(['--data', dir], key, false)) - load.receivedBlocks;
    const costs = [...load.cutCosts];
    const oneOrTwo = costs.some((a) => a === excess || costs.some((b) => a + b === excess));
    const someSmall = excess % SMALL_COST === 0 && excess / SMALL_COST <= Math.floor(load.cutSmall / 3);
    expect(excess >= 0, `charged ${-excess} blocks fewer than the responses received`).toBe(true);
    expect(excess === 0 || oneOrTwo || someSmall, `charged ${excess} blocks beyond the responses received (cut-off costs ${costs.join(', ')}; ${load.cutSmall} small ones cut off)`).toBe(true);
  });

  // Without redis-server (outside CI) only this half is left out; CI requires it (vitest.config.ts).
  describe.skipIf(!redisAvailable())('with --redis', () => {
    let redis: RedisServer;
    // biome-ignore lint/suspicious/noDuplicateTestHooks: these hooks belong to this nested describe.skipIf() block, which Biome does not see as one
    beforeAll(async () => {
      redis = await startRedis();
    });
    // biome-ignore lint/suspicious/noDuplicateTestHooks: as above
    afterAll(async () => redis?.stop());

    it('the blocks counted in Redis include every response that arrived whole and, beyond them, only requests cut off by the kill', async () => {
      const key = keys[1]!;
      const args = ['--data', dir, '--redis', redis.url];
      const server = await spawnServer(args);
      const load = await loadThenKill(server, key, 400);
      expect(server.proc.signalCode).toBe('SIGKILL');
      expect(load.cut).toBeGreaterThan(0);
      // Not exact yet: between Redis applying a charge and the server sending the response's
      // last bytes, a loaded event loop takes milliseconds, and a kill then charges the
      // responses in that instant (docs/metering.md); it charges none of the others cut off.
      const charged = await chargedAfterRestart(args, key, true);
      expect(charged).toBeGreaterThanOrEqual(load.receivedBlocks);
      expect(charged - load.receivedBlocks).toBeLessThanOrEqual(load.cutBlocks);
    });
  });
});
