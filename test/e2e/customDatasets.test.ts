/**
 * Operator-defined datasets end to end against a real anvil: a contract of
 * our own with events of several ABI kinds is deployed twice (and a third
 * copy that the declaration leaves out), declared in a file, ingested with
 * `chainq ingest evm --custom`, and served. Every served row must equal the
 * node's own eth_getLogs decoded independently with viem's decodeEventLog.
 */
import { parse as parseCsv } from 'csv-parse/sync';
import type { FastifyInstance } from 'fastify';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decodeEventLog, type Abi, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../src/metering/keys.ts';
import { MIN_BLOCK_COST } from '../../src/query/cost.ts';
import { createApp } from '../../src/server/createApp.ts';
import { createClickHouseStore } from '../helpers/clickhouseStore.ts';
import { createStore } from '../../src/store/openStore.ts';
import type { Store } from '../../src/store/types.ts';
import { startAnvil, type Anvil } from '../helpers/anvil.ts';
import { connectChain, type Chain } from '../helpers/chain.ts';
import { runCli } from '../helpers/cli.ts';
import { readParquet } from '../helpers/formats.ts';
import { createTestStore } from '../helpers/testApp.ts';

interface NodeLog {
  address: Hex;
  topics: [Hex, ...Hex[]];
  data: Hex;
  blockNumber: Hex;
  logIndex: Hex;
  transactionHash: Hex;
}

const MAX_UINT256 = 2n ** 256n - 1n;
const MIN_INT256 = -(2n ** 255n);
const BIG_UINT64 = 2n ** 63n + 5n;

describe.each(['duckdb', 'chdb'] as const)('custom event datasets (anvil, %s)', (engine) => {
  let anvil: Anvil;
  /** A DuckDB store to read Parquet bodies with. */
  let reader: Store;
  let chain: Chain;
  let dir: string;
  let file: string;
  let store: Store;
  let app: FastifyInstance;
  let key: string;
  let vaults: Hex[];
  let from: number;
  let to: number;
  let abi: Abi;
  let times: Map<number, string>;
  let nodeLogs: NodeLog[];

  const get = (url: string) => app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
  const range = () => `network=ETH&block_start=${from}&block_end=${to}`;

  /** What the API must answer for one event, from the node's logs of the declared contracts. */
  function expected(eventName: string, contracts: readonly Hex[] = vaults.slice(0, 2)): Record<string, unknown>[] {
    const text = (v: unknown): unknown => JSON.parse(JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x)));
    return nodeLogs
      .filter((l) => contracts.includes(l.address.toLowerCase() as Hex))
      .flatMap((l) => {
        const d = decodeEventLog({ abi, data: l.data, topics: l.topics });
        if (d.eventName !== eventName) return [];
        const a = d.args as unknown as Record<string, unknown>;
        const block = Number(BigInt(l.blockNumber));
        const row: Record<string, unknown> = { block_number: block };
        if (eventName === 'Deposited') Object.assign(row, { who: String(a.who).toLowerCase(), amount: String(a.amount), delta: Number(a.delta), flag: a.flag, tag: a.tag });
        if (eventName === 'WithdrawalRequested') {
          Object.assign(row, {
            owner: String(a.owner).toLowerCase(),
            receiver: String(a.receiver).toLowerCase(),
            change: String(a.change),
            memo: a.memo,
            payload: a.payload,
            small: Number(a.small),
            big: Number(a.big),
          });
        }
        // The indexed string is only its hash: the topic itself.
        if (eventName === 'Tagged')
          Object.assign(row, { label: l.topics[1], ids: JSON.stringify(text(a.ids)), pair: JSON.stringify((a.pair as string[]).map((x) => x.toLowerCase())), tick: Number(a.tick) });
        row.time = times.get(block);
        return [row];
      });
  }

  beforeAll(async () => {
    anvil = await startAnvil({ chainId: 1 });
    chain = await connectChain(anvil.url);
    abi = chain.artifacts.Vault!.abi as Abi;
    await chain.rpc('anvil_setBlockTimestampInterval', [12]);
    from = (await chain.blockNumber()) + 1;
    vaults = [await chain.deploy('Vault'), await chain.deploy('Vault'), await chain.deploy('Vault')];
    const [alice, bob, carol] = chain.accounts as [Hex, Hex, Hex];
    for (const [i, v] of vaults.entries()) {
      await chain.send('Vault', v, 'deposit', [alice, MAX_UINT256, -5n, true, `0x${'ab'.repeat(32)}`]);
      await chain.send('Vault', v, 'deposit', [bob, BigInt(i + 1) * 10n ** 18n, 9_223_372_036_854_775_807n, false, `0x${'00'.repeat(31)}01`]);
      await chain.send('Vault', v, 'requestWithdrawal', [carol, bob, MIN_INT256, 'naïve, "quoted" memo', '0xdeadbeef', 255, BIG_UINT64]);
      await chain.send('Vault', v, 'requestWithdrawal', [alice, alice, 12_345n, '', '0x', 0, 0n]);
      await chain.send('Vault', v, 'tag', ['gold', [1n, MAX_UINT256], [alice, bob], -8_388_608]);
    }
    to = await chain.blockNumber();
    nodeLogs = await chain.rpc<NodeLog[]>('eth_getLogs', [{ fromBlock: `0x${from.toString(16)}`, toBlock: `0x${to.toString(16)}`, address: vaults }]);
    times = new Map();
    for (let b = from; b <= to; b++) {
      const block = await chain.rpc<{ timestamp: Hex }>('eth_getBlockByNumber', [`0x${b.toString(16)}`, false]);
      times.set(b, new Date(Number(BigInt(block.timestamp)) * 1000).toISOString().replace('.000Z', 'Z'));
    }

    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-custom-'));
    file = path.join(dir, 'vault.json');
    // The ABI as solc prints it (functions included), three of its four events kept; addresses in mixed case.
    fs.writeFileSync(
      file,
      JSON.stringify({
        name: 'vault',
        abi,
        events: ['Deposited', 'WithdrawalRequested', 'Tagged'],
        networks: { eth: { addresses: [vaults[0]!.toUpperCase().replace('0X', '0x'), vaults[1]], from_block: from } },
      }),
    );
    const chdbDir = path.join(dir, 'chdb');
    const target = engine === 'chdb' ? ['--store', `chdb:${chdbDir}`] : [];
    const r = await runCli(['ingest', 'evm', '--network', 'ETH', '--rpc', anvil.url, '--from', '0', '--to', String(to), '--confirmations', '0', '--data', dir, ...target, '--custom', file, '--log']);
    expect(r.code, r.stderr).toBe(0);
    store = engine === 'chdb' ? await createClickHouseStore({ target: { engine: 'chdb', dir: chdbDir }, database: 'chainq' }) : await createStore({ dataDir: dir, threads: 2 });
    reader = engine === 'chdb' ? await createTestStore(null, 'duckdb') : store;
    app = await createApp({ store });
    ({ key } = await createKey(store, { plan: 'unlimited' }));
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await store?.close();
    if (reader !== store) await reader?.close();
    await anvil?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('serves every declared event exactly as the node decodes it, and only the declared contracts', async () => {
    for (const [event, name] of [
      ['deposited', 'Deposited'],
      ['withdrawal_requested', 'WithdrawalRequested'],
      ['tagged', 'Tagged'],
    ] as const) {
      const r = await get(`/v1/evm/custom/vault/events/${event}?${range()}`);
      expect(r.statusCode, r.body).toBe(200);
      const rows = r.json().events as Record<string, unknown>[];
      expect(rows.length).toBe(2 * (name === 'Tagged' ? 1 : 2));
      expect(rows).toEqual(expected(name));
    }
  });

  it("streams a declared event: a bounded stream sends the raw endpoint's rows of its blocks, then end", async () => {
    const r = await get(`/v1/evm/custom/vault/events/deposited/stream?${range()}`);
    expect(r.statusCode, r.body).toBe(200);
    expect(r.headers['content-type']).toMatch(/^text\/event-stream/);
    const events = r.body
      .split('\n\n')
      .filter((block) => block.startsWith('event: '))
      .map((block) => ({ event: block.slice(7, block.indexOf('\n')), data: JSON.parse(block.slice(block.indexOf('data: ') + 6)) as { events?: unknown[] } }));
    expect(events.flatMap((e) => (e.event === 'rows' ? (e.data.events ?? []) : []))).toEqual(expected('Deposited'));
    expect(events.at(-1)).toEqual({ event: 'end', data: { block_number: to } });
  });

  it('keeps integers exact to 256 bits and 64-bit integers as numbers with all their digits', async () => {
    const r = await get(`/v1/evm/custom/vault/events/withdrawal_requested?${range()}`);
    expect(r.body).toContain(`"change":"${MIN_INT256}"`);
    expect(r.body).toContain(`"big":${BIG_UINT64}`);
    const d = await get(`/v1/evm/custom/vault/events/deposited?${range()}`);
    expect(d.body).toContain(`"amount":"${MAX_UINT256}"`);
  });

  it('answers CSV and Parquet with the same rows', async () => {
    const want = expected('WithdrawalRequested');
    const csv = await get(`/v1/evm/custom/vault/events/withdrawal_requested?${range()}&format=csv`);
    expect(csv.statusCode).toBe(200);
    const rows = parseCsv(csv.body, { columns: true }) as Record<string, string>[];
    expect(Object.keys(rows[0]!)).toEqual(['block_number', 'owner', 'receiver', 'change', 'memo', 'payload', 'small', 'big', 'time']);
    expect(rows.map((x) => ({ ...x, block_number: Number(x.block_number), small: Number(x.small), big: Number(x.big) }))).toEqual(want);
    expect(csv.body).toContain(String(BIG_UINT64));

    const pq = await get(`/v1/evm/custom/vault/events/deposited?${range()}&format=parquet`);
    expect(pq.statusCode).toBe(200);
    const content = await readParquet(reader, pq.rawPayload);
    expect(content.columns.map((c) => c.name)).toEqual(['block_number', 'who', 'amount', 'delta', 'flag', 'tag', 'time']);
    expect(content.rows.map((x) => ({ ...x, block_number: Number(x.block_number), delta: Number(x.delta) }))).toEqual(expected('Deposited'));
  });

  it('answers time ranges and download links like any EVM endpoint', async () => {
    // Blocks are 12 s apart: from+1 up to, not including, to.
    const since = times.get(from + 1)!;
    const until = times.get(to)!;
    const byTime = await get(`/v1/evm/custom/vault/events/deposited?network=ETH&since=${since}&until=${until}`);
    expect(byTime.statusCode, byTime.body).toBe(200);
    expect(byTime.json().events).toEqual(expected('Deposited').filter((x) => (x.block_number as number) > from && (x.block_number as number) < to));
    const link = await get(`/v1/evm/custom/vault/events/deposited?${range()}&format=csv&link=true`);
    expect(link.statusCode, link.body).toBe(200);
    const url = new URL(link.json().url as string);
    const file = await app.inject({ method: 'GET', url: url.pathname });
    expect(file.statusCode).toBe(200);
    expect((parseCsv(file.body, { columns: true }) as unknown[]).length).toBe(4);
  });

  it('filters by contract and by address-typed inputs, and verbose rows carry the log key and the contract', async () => {
    const byContract = (await get(`/v1/evm/custom/vault/events/deposited?${range()}&contract=${vaults[1]!.toUpperCase().replace('0X', '0x')}`)).json().events;
    expect(byContract).toEqual(expected('Deposited', [vaults[1]!]));
    const bob = chain.accounts[1]!;
    const byWho = (await get(`/v1/evm/custom/vault/events/deposited?${range()}&who=${bob}`)).json().events as Record<string, unknown>[];
    expect(byWho).toEqual(expected('Deposited').filter((x) => x.who === bob));
    expect(byWho.length).toBe(2);

    const verbose = (await get(`/v1/evm/custom/vault/events/tagged?${range()}&verbose=true`)).json().events as Record<string, unknown>[];
    const logs = nodeLogs.filter((l) => vaults.slice(0, 2).includes(l.address.toLowerCase() as Hex) && decodeEventLog({ abi, data: l.data, topics: l.topics }).eventName === 'Tagged');
    expect(verbose.map((v) => [v.network, v.tx_id, v.log_index, v.name, v.contract_address])).toEqual(
      logs.map((l) => ['ETH', l.transactionHash, Number(BigInt(l.logIndex)), 'Tagged', l.address.toLowerCase()]),
    );
  });

  it('lists what is declared with its columns and coverage, and leaves /v1/protocols as it was', async () => {
    const list = (await get('/v1/evm/custom')).json() as {
      datasets: {
        name: string;
        networks: Record<string, unknown>;
        events: { event: string; signature: string; path: string; columns: { name: string }[]; coverage: Record<string, { block_start: number; block_end: number }[]> }[];
      }[];
    };
    expect(list.datasets.map((d) => d.name)).toEqual(['vault']);
    const [vault] = list.datasets;
    expect(vault!.networks).toEqual({ ETH: { addresses: vaults.slice(0, 2).sort(), from_block: from } });
    // In the ABI's order (solc sorts events by name).
    expect(vault!.events.map((e) => [e.event, e.signature, e.path])).toEqual([
      ['deposited', 'Deposited(address,uint256,int64,bool,bytes32)', '/v1/evm/custom/vault/events/deposited'],
      ['tagged', 'Tagged(string,uint256[],address[2],int24)', '/v1/evm/custom/vault/events/tagged'],
      ['withdrawal_requested', 'WithdrawalRequested(address,address,int256,string,bytes,uint8,uint64)', '/v1/evm/custom/vault/events/withdrawal_requested'],
    ]);
    expect(vault!.events[0]!.columns.map((c) => c.name)).toEqual(['block_number', 'who', 'amount', 'delta', 'flag', 'tag', 'time']);
    // Blocks before from_block hold no event by declaration: covered from 0.
    expect(vault!.events[0]!.coverage).toEqual({ ETH: [{ block_start: 0, block_end: to }] });
    const protocols = (await get('/v1/protocols')).json() as string[];
    expect(protocols.some((p) => p.includes('custom'))).toBe(false);
  });

  it('prices a custom query like any EVM raw query, and charges it', async () => {
    const query = `/v1/evm/custom/vault/events/deposited?${range()}`;
    const est = await app.inject({ method: 'POST', url: '/v1/calculate-cost', headers: { 'x-api-key': key, 'content-type': 'application/json' }, payload: { query } });
    expect(est.statusCode, est.body).toBe(200);
    // The blocks rule of every EVM raw query: the block range, at least MIN_BLOCK_COST.
    expect(est.json().breakdown).toMatchObject({ network: 'eth', range_type: 'block', block_range: to - from, is_aggregate: false });
    expect(est.json().cost).toBe(Math.max(MIN_BLOCK_COST, to - from));
    const usage = async () => ((await get('/v1/usage')).json() as { blocks_used: number }).blocks_used;
    const before = await usage();
    expect((await get(query)).statusCode).toBe(200);
    expect(await usage()).toBe(before + (est.json().cost as number));
  });

  it('answers bad input with clear 4xx errors', async () => {
    const unknown = await get(`/v1/evm/custom/vault/events/nothing?${range()}`);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error).toContain('vault/events/deposited');
    expect((await get(`/v1/evm/custom/other/events/deposited?${range()}`)).statusCode).toBe(404);
    const badParam = await get(`/v1/evm/custom/vault/events/deposited?${range()}&colour=red`);
    expect(badParam.statusCode).toBe(400);
    expect(badParam.json().code).toBe('unknown_parameter');
    const badNetwork = await get(`/v1/evm/custom/vault/events/deposited?network=ARB&block_start=1&block_end=2`);
    expect(badNetwork.statusCode).toBe(400);
    const badBlock = await get(`/v1/evm/custom/vault/events/deposited?network=ETH&block_start=x&block_end=2`);
    expect(badBlock.statusCode).toBe(400);
    expect(badBlock.json().code).toBe('invalid_parameter');
    const uncovered = await get(`/v1/evm/custom/vault/events/deposited?network=ETH&block_start=${to + 1}&block_end=${to + 5}`);
    expect(uncovered.statusCode).toBeGreaterThanOrEqual(400);
    expect(uncovered.statusCode).toBeLessThan(500);
    const post = await app.inject({
      method: 'POST',
      url: `/v1/evm/custom/vault/events/deposited?${range()}`,
      headers: { 'x-api-key': key, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'a=b',
    });
    expect(post.statusCode).toBe(405);
    expect(post.headers.allow).toBe('GET');
    for (const r of [unknown, badParam, post]) expect(r.body).not.toMatch(/SELECT|evm_custom_|at .*\.ts/);
  });
});
