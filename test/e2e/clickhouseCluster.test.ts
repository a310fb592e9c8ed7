/**
 * Scale-out on one ClickHouse (docs/deployment.md, "Tested topology"), with
 * the real processes, all at once: two `chainq serve --store clickhouse://…
 * --redis …` API servers with data directories of their own, one
 * redis-server, ingestion writers `chainq ingest evm --store clickhouse://…`
 * fed by a real anvil, and operator commands (`chainq keys …`) from other
 * processes, one of them through a server's operator channel. The store is
 * filled with `chainq demo --store clickhouse://…` before the servers start.
 *
 * The ClickHouse is TEST INFRASTRUCTURE standing in for a ClickHouse server:
 * test/helpers/clickhouseHttpFront.ts, an HTTP front over chDB that speaks the
 * part of ClickHouse's HTTP interface `@clickhouse/client` uses, in a process
 * of its own. No ClickHouse server can be installed on the test machines, and
 * chDB binds one data directory per process; every chainq process here
 * reaches the front over HTTP as it would reach a server.
 *
 * While a writer ingests and a background load keeps both servers busy:
 * - whatever either server answers, at any moment, is exactly what the node
 *   logged over the range that server reports as covered, and blocks mined
 *   later, ingested by a second writer from another directory, reach both;
 * - a key created, moved to another plan or revoked from another process
 *   takes effect on both servers within 5 s;
 * - one key's budget is one budget across both servers (Redis), and
 *   `chainq keys usage --redis` reads it;
 * - every request of the background load is answered 200.
 *
 * The writers ingest a fixed range, not `--follow`: the demo's ETH blocks are
 * another chain than anvil's, and a follower compares the network's newest
 * stored block with the node's (docs/ingest-evm.md), which here would be a
 * reorg deeper than it follows.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnvil, type Anvil } from '../helpers/anvil.ts';
import { connectChain, type Chain } from '../helpers/chain.ts';
import { spawnClickHouseHttpFront, type ClickHouseHttpFrontProcess } from '../helpers/clickhouseHttpFront.ts';
import { runCli, spawnCli, type RunningCli } from '../helpers/cli.ts';
import { ingestEvmArgs } from '../helpers/ingestEvm.ts';
import { SMALL_COST, SMALL_QUERY, spawnServer, writePlansFile, type ServerProcess } from '../helpers/metered.ts';
import { startRedis, type RedisServer } from '../helpers/redis.ts';
import { buildEvmScenario, writeScenarioConfig, type EvmScenario } from './evmScenario.ts';
import { eventAbi, lower, nodeTruth, units } from './nodeTruth.ts';

let root: string;
let front: ClickHouseHttpFrontProcess;
let redis: RedisServer;
let anvil: Anvil;
let chain: Chain;
let s: EvmScenario;
let store: string;
let protocols: string;
let plansFile: string;
/** Data directories: one per server, and one per operator or writer "machine" (no server runs on those). */
const dirs = { a: '', b: '', writer: '', writer2: '', operator: '' };
let a: ServerProcess;
let b: ServerProcess;
let key: string;
/** A key on the `race` plan, for the shared budget. */
let raceKey: string;
const writers: RunningCli[] = [];

const PLANS = {
  small: { requests_per_minute: 5000, monthly_blocks: 100_000_000 },
  large: { requests_per_minute: 9000, monthly_blocks: 100_000_000 },
  race: { requests_per_minute: null, monthly_blocks: 3 * SMALL_COST + 50 },
};

/** A `chainq` command as an operator runs it, expected to succeed; its stdout. */
async function chainq(args: readonly string[]): Promise<string> {
  const r = await runCli(args);
  expect(r.code, `chainq ${args.join(' ')}:\n${r.stderr}`).toBe(0);
  return r.stdout;
}

const lastLine = (text: string) => text.trim().split('\n').pop()!.trim();

/** `chainq ingest evm` over [from, to] into the ClickHouse store, from its own data directory. */
const ingest = (from: number, to: number, dir: string) => {
  const w = spawnCli(ingestEvmArgs({ rpc: anvil.url, from, to, batchBlocks: 3, store, data: dir, protocols }));
  writers.push(w);
  return w;
};

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-cluster-'));
  for (const k of Object.keys(dirs) as (keyof typeof dirs)[]) dirs[k] = path.join(root, k);
  [front, redis, anvil] = await Promise.all([spawnClickHouseHttpFront({ dir: path.join(root, 'clickhouse'), username: 'chainq', password: 's3cret' }), startRedis(), startAnvil({ chainId: 1 })]);
  store = front.storeUrl('chainq');
  chain = await connectChain(anvil.url);
  s = await buildEvmScenario(chain);
  protocols = writeScenarioConfig(dirs.writer, s).protocols;
  plansFile = writePlansFile(root, PLANS);
  const demo = await chainq(['demo', '--store', store, '--data', dirs.operator, '--days', '0.02']);
  expect(demo).toMatch(/^demo dataset loaded into clickhouse http:\/\/127\.0\.0\.1:\d+\/chainq in /);
  expect(demo).not.toContain('s3cret');
  const serve = (dir: string) => spawnServer(['--store', store, '--redis', redis.url, '--data', dir, '--plans', plansFile]);
  const newKey = async (plan: string) => lastLine(await chainq(['keys', 'create', '--plan', plan, '--store', store, '--data', dirs.operator, '--plans', plansFile]));
  [a, b, key, raceKey] = await Promise.all([serve(dirs.a), serve(dirs.b), newKey('unlimited'), newKey('race')]);
});

afterAll(async () => {
  for (const w of writers) w.child.kill('SIGKILL');
  await Promise.all(writers.map((w) => w.done));
  await Promise.all([a?.stop(), b?.stop()]);
  await Promise.all([front?.stop(), redis?.stop(), anvil?.stop()]);
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

const get = (srv: ServerProcess, url: string, k = key) => fetch(`${srv.url}${url}`, { headers: { 'x-api-key': k } });
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A loop of requests until stopped; what it saw. */
function repeat<T>(round: (i: number) => Promise<T>, gapMs: number): { rounds(): number; stop(): Promise<T[]> } {
  const seen: T[] = [];
  let running = true;
  const loop = (async () => {
    for (let i = 0; running; i++) {
      seen.push(await round(i));
      await pause(gapMs);
    }
  })();
  return {
    rounds: () => seen.length,
    async stop() {
      running = false;
      await loop;
      return seen;
    },
  };
}

interface Answered {
  readonly server: string;
  readonly url: string;
  readonly status: number;
  readonly body: string;
}

/** Demo queries and coverage, alternating between the servers. */
function backgroundLoad() {
  const urls = [SMALL_QUERY, '/v1/coverage', '/v1/evm/dex_v3/events/swap?network=ETH&symbol0=WETH&symbol1=USDC&fee=500&block_start=23910000&block_end=23910100'];
  return repeat(async (i): Promise<Answered> => {
    const srv = i % 2 ? a : b;
    const url = urls[i % urls.length]!;
    try {
      const res = await get(srv, url);
      const body = await res.text();
      return { server: srv.url, url, status: res.status, body: res.status === 200 ? '' : body.slice(0, 500) };
    } catch (e) {
      return { server: srv.url, url, status: 0, body: String(e) };
    }
  }, 100);
}

/** The highest block of the ETH erc20 transfer range that holds the scenario's first block, as `srv` reports it. */
async function coveredTo(srv: ServerProcess): Promise<number | null> {
  const res = await get(srv, '/v1/coverage');
  if (res.status !== 200) throw new Error(`${srv.url}/v1/coverage: ${res.status} ${await res.text()}`);
  const doc = (await res.json()) as { coverage: { dataset: string; network: string; ranges: { from: number; to: number }[] }[] };
  const entry = doc.coverage.find((c) => c.dataset === 'evm/erc20/transfer' && c.network === 'ETH');
  return entry?.ranges.find((r) => r.from <= s.from && s.from <= r.to)?.to ?? null;
}

type Row = Record<string, unknown>;

/** USDX transfers the node logged from the scenario's first block to `to`, as the API's rows. */
async function nodeTransfers(to: number): Promise<Row[]> {
  const truth = nodeTruth(chain, s.from, to);
  const logs = await truth.logs(eventAbi(chain, 'TestToken', 'Transfer'), s.tokens.usdx);
  return Promise.all(
    logs.map(async (d) => ({
      block_number: d.block,
      token: 'USDX',
      sender: lower(d.args.from),
      receiver: lower(d.args.to),
      amount: units(d.args.value as bigint, 6),
      time: await truth.time(d.block),
    })),
  );
}

interface Observation {
  readonly server: string;
  readonly covered: number | null;
  readonly matches: boolean;
  readonly detail: string;
}

/** Each round, per server: what it covers of the scenario, and whether its USDX transfers over that range are the node's. */
function truthWatch() {
  let truth: { head: number; rows: Row[] } = { head: -1, rows: [] };
  return repeat(async (i): Promise<Observation> => {
    const srv = i % 2 ? a : b;
    try {
      const covered = await coveredTo(srv);
      if (covered === null) return { server: srv.url, covered, matches: true, detail: 'nothing covered yet' };
      if (covered > truth.head) truth = { head: covered, rows: await nodeTransfers(covered) };
      const res = await get(srv, `/v1/evm/erc20/events/transfer?network=ETH&token=${s.tokens.usdx}&block_start=${s.from}&block_end=${covered}`);
      const body = await res.text();
      const expected = truth.rows.filter((r) => (r.block_number as number) <= covered);
      const served = res.status === 200 ? (JSON.parse(body) as { events: Row[] }).events : null;
      return { server: srv.url, covered, matches: isDeepStrictEqual(served, expected), detail: `${res.status} ${body.slice(0, 300)}` };
    } catch (e) {
      return { server: srv.url, covered: null, matches: false, detail: String(e) };
    }
  }, 50);
}

describe('two API servers, ingestion writers, operator commands: one ClickHouse, one Redis', () => {
  let load: ReturnType<typeof backgroundLoad>;
  let watch: ReturnType<typeof truthWatch>;
  let writer: RunningCli;

  beforeAll(() => {
    load = backgroundLoad();
    watch = truthWatch();
    writer = ingest(s.from, s.to, dirs.writer);
  });
  afterAll(async () => {
    await Promise.all([load?.stop(), watch?.stop()]);
  });

  /** Polls both servers with `k` until `done` holds for both answers; how long that took. Every answer on the way passes `allowed`. */
  async function untilBoth(k: string, done: (r: Response) => boolean, allowed: (r: Response) => boolean): Promise<number> {
    const t0 = Date.now();
    const settled = new Set<ServerProcess>();
    while (settled.size < 2 && Date.now() - t0 < 10_000) {
      for (const srv of [a, b]) {
        const res = await get(srv, '/v1/protocols', k);
        await res.arrayBuffer();
        expect(allowed(res), `${srv.url}: ${res.status} limit ${res.headers.get('x-ratelimit-limit')}`).toBe(true);
        if (done(res)) settled.add(srv);
        else settled.delete(srv);
      }
      await pause(100);
    }
    expect(settled.size).toBe(2);
    return Date.now() - t0;
  }

  const limit = (r: Response) => r.headers.get('x-ratelimit-limit');

  it('a key created, moved to another plan and revoked from other processes takes effect on both servers within 5 s', async () => {
    // All of this happens while the writer ingests.
    expect(writer.child.exitCode).toBeNull();
    // Created from an operator machine (no server on its --data): the command opens the ClickHouse store itself.
    const created = await chainq(['keys', 'create', '--plan', 'small', '--name', 'scale-out', '--store', store, '--data', dirs.operator, '--plans', plansFile]);
    const k = lastLine(created);
    const id = /created key (\S+)/.exec(created)![1]!;
    const small = (r: Response) => r.status === 200 && limit(r) === '5000';
    expect(await untilBoth(k, small, (r) => r.status === 401 || small(r))).toBeLessThan(5_000);

    // Moved through server A's operator channel (a command that needs a running server shows the channel is there): server B learns it from ClickHouse.
    expect(JSON.parse(await chainq(['jobs', 'list', '--json', '--data', dirs.a]))).toEqual([]);
    await chainq(['keys', 'set-plan', id, 'large', '--store', store, '--data', dirs.a]);
    const large = (r: Response) => r.status === 200 && limit(r) === '9000';
    // A server caches a key's record for 5 s: the change shows within 5 s, plus the poll that sees it.
    expect(await untilBoth(k, large, (r) => small(r) || large(r))).toBeLessThan(5_000 + 500);

    // Revoked from yet another process and directory.
    await chainq(['keys', 'revoke', k.slice(0, 7), '--store', store, '--data', dirs.writer2]);
    expect(
      await untilBoth(
        k,
        (r) => r.status === 401,
        (r) => r.status === 401 || large(r),
      ),
    ).toBeLessThan(5_000 + 500);
    const list = JSON.parse(await chainq(['keys', 'list', '--json', '--store', store, '--data', dirs.operator])) as { id: string; plan: string; revokedAt: string | null }[];
    expect(list.find((x) => x.id === id)).toMatchObject({ plan: 'large', revokedAt: expect.any(String) });
  });

  it('one budget across both servers: what one charges, the other counts; `keys usage --redis` reads it', async () => {
    const k = raceKey;
    const remaining: string[] = [];
    for (const srv of [a, b, a]) {
      const res = await get(srv, SMALL_QUERY, k);
      expect(res.status, await res.text()).toBe(200);
      const other = await get(srv === a ? b : a, '/v1/protocols', k);
      remaining.push(other.headers.get('x-ratelimit-remaining')!);
      await other.arrayBuffer();
    }
    expect(remaining).toEqual(['250', '150', '50']);
    const refused = await get(b, SMALL_QUERY, k);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ code: 'quota_exceeded', remaining: 50, cost: SMALL_COST });
    const usage = JSON.parse(await chainq(['keys', 'usage', k.slice(0, 7), '--json', '--redis', redis.url, '--store', store, '--data', dirs.operator, '--plans', plansFile])) as unknown[];
    expect(usage).toEqual([expect.objectContaining({ plan: 'race', requests: 3, blocks: 3 * SMALL_COST, remaining: 50 })]);
  });

  it("both servers served the node's truth over what they covered throughout; new blocks from a second writer reach both; the load was served", async () => {
    const first = await writer.done;
    expect(first.code, first.stderr.slice(-2000)).toBe(0);
    expect(first.stdout).toMatch(/^done: \d+ blocks/m);
    // Blocks mined afterwards, ingested by a writer on another machine (its own --data).
    for (const [to, amount] of [
      [s.users.carol, 7_000_000n],
      [s.users.dave, 8_000_000n],
      [s.users.bob, 9_000_000n],
    ] as const) {
      await chain.send('TestToken', s.tokens.usdx, 'transfer', [to, amount], { from: s.users.alice });
    }
    const head = await chain.blockNumber();
    expect(head).toBe(s.to + 3);
    const second = await ingest(s.to + 1, head, dirs.writer2).done;
    expect(second.code, second.stderr.slice(-2000)).toBe(0);
    for (let t0 = Date.now(); ; await pause(100)) {
      const covered = await Promise.all([coveredTo(a), coveredTo(b)]);
      if (covered.every((c) => c === head)) break;
      expect(Date.now() - t0, `both servers covering block ${head}: ${covered.join(', ')}`).toBeLessThan(10_000);
    }
    // One more round of the watch on each server, at the new head.
    for (const n = watch.rounds() + 2; watch.rounds() < n; ) await pause(50);
    const observed = await watch.stop();
    expect(observed.filter((o) => !o.matches)).toEqual([]);
    for (const srv of [a, b]) {
      const covered = observed.filter((o) => o.server === srv.url).map((o) => o.covered);
      // Seen mid-ingestion (several covered ranges, each answered as the node says) and at the end.
      expect(new Set(covered.filter((c) => c !== null)).size, `${srv.url} saw coverage grow: ${covered.join(',')}`).toBeGreaterThan(2);
      expect(covered.at(-1)).toBe(head);
    }

    const range = `network=ETH&block_start=${s.from}&block_end=${head}&verbose=true`;
    const tokens: Hex[] = [s.tokens.usdx, s.tokens.wethx, s.tokens.wbtx];
    const urls = [
      '/v1/coverage',
      ...tokens.map((t) => `/v1/evm/erc20/events/transfer?${range}&token=${t}`),
      `/v1/evm/native/events/transfer?${range}`,
      `/v1/evm/dex_v3/events/swap?${range}&symbol0=WETHX&symbol1=USDX&fee=500`,
      ...['deposit', 'borrow', 'liquidation'].map((e) => `/v1/evm/lending_v3/events/${e}?${range}&eth_market_type=core`),
      `/v1/evm/staking/events/deposit?${range}`,
    ];
    for (const url of urls) {
      const [ra, rb] = await Promise.all([get(a, url), get(b, url)]);
      const [ta, tb] = [await ra.text(), await rb.text()];
      expect([ra.status, rb.status], `${url}: ${ta.slice(0, 300)}`).toEqual([200, 200]);
      expect(tb, url).toBe(ta);
    }

    const seen = await load.stop();
    expect(seen.length).toBeGreaterThan(20);
    expect(seen.filter((r) => r.status !== 200)).toEqual([]);
  });
});
