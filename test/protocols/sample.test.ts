/**
 * A protocol defined only under test/ (test/protocols/sample/) plugs in
 * through the registry: named in CHAINQ_PROTOCOLS, it gets its table, its
 * route, its `--only` name and its section of the protocols file, and is
 * ingested from anvil and served like a built-in one, and its demo rows come
 * from its own description. Nothing in src/ names it.
 */
import type { FastifyInstance } from 'fastify';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decodeEventLog, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/types.ts';
import { startAnvil, type Anvil } from '../helpers/anvil.ts';
import { connectChain, type Chain } from '../helpers/chain.ts';
import { runCli } from '../helpers/cli.ts';
import { ingestEvmArgs } from '../helpers/ingestEvm.ts';
import { SAMPLE_ABI } from './sample/catalog.ts';
import { SAMPLE_DEMO_PER_DAY, SAMPLE_DEMO_VAULT } from './sample/demo.ts';

interface NodeLog {
  address: Hex;
  topics: [Hex, ...Hex[]];
  data: Hex;
  blockNumber: Hex;
}

// Read when the registry is first imported: src/ modules are imported below, after this.
process.env.CHAINQ_PROTOCOLS = path.join(import.meta.dirname, 'sample', 'index.ts');

describe('a protocol defined outside src/ (anvil)', () => {
  let anvil: Anvil;
  let chain: Chain;
  let dir: string;
  let store: Store;
  let app: FastifyInstance;
  let key: string;
  let vaults: Hex[];
  let from: number;
  let to: number;
  let nodeLogs: NodeLog[];

  const get = (url: string) => app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });

  beforeAll(async () => {
    anvil = await startAnvil({ chainId: 1 });
    chain = await connectChain(anvil.url);
    from = (await chain.blockNumber()) + 1;
    vaults = [await chain.deploy('Vault'), await chain.deploy('Vault')];
    const [alice, bob] = chain.accounts as [Hex, Hex];
    for (const v of vaults) {
      await chain.send('Vault', v, 'deposit', [alice, 5n * 10n ** 18n, 1n, true, `0x${'ab'.repeat(32)}`]);
      await chain.send('Vault', v, 'deposit', [bob, 123n, -1n, false, `0x${'00'.repeat(32)}`]);
    }
    to = await chain.blockNumber();
    nodeLogs = await chain.rpc<NodeLog[]>('eth_getLogs', [{ fromBlock: `0x${from.toString(16)}`, toBlock: `0x${to.toString(16)}`, address: vaults }]);

    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-sample-protocol-'));
    // Only the first vault is configured: the protocol's own section of the protocols file.
    const protocols = path.join(dir, 'protocols.json');
    fs.writeFileSync(protocols, JSON.stringify({ sample: { eth: { vaults: [vaults[0]] } } }));
    const r = await runCli(ingestEvmArgs({ rpc: anvil.url, from: 0, to, data: dir, protocols, only: 'sample' }));
    expect(r.code, r.stderr).toBe(0);

    const { createStore } = await import('../../src/store/openStore.ts');
    const { createApp } = await import('../../src/server/createApp.ts');
    const { createKey } = await import('../../src/metering/keys.ts');
    store = await createStore({ dataDir: dir, threads: 2 });
    app = await createApp({ store });
    ({ key } = await createKey(store, { plan: 'unlimited' }));
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await store?.close();
    await anvil?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
    // The next test file of this worker builds its registry without the sample.
    delete process.env.CHAINQ_PROTOCOLS;
  });

  it('is in the registry after the built-in protocols, and the catalog serves its dataset', async () => {
    const { protocolRegistry, BUILT_IN_PROTOCOLS } = await import('../../src/protocols/index.ts');
    expect(protocolRegistry.names).toEqual([...BUILT_IN_PROTOCOLS.map((p) => p.name), 'sample']);
    const { endpointById } = await import('../../src/catalog/index.ts');
    expect(endpointById('evm/sample/deposit')?.served).toBe(true);
  });

  it('serves the configured vault’s deposits exactly as the node decodes them, and not the other vault’s', async () => {
    const r = await get(`/v1/evm/sample/events/deposit?network=ETH&block_start=${from}&block_end=${to}`);
    expect(r.statusCode, r.body).toBe(200);
    const rows = r.json().events as Record<string, unknown>[];
    const expected = nodeLogs
      .filter((l) => l.address.toLowerCase() === vaults[0]!.toLowerCase())
      .map((l) => {
        const d = decodeEventLog({ abi: [SAMPLE_ABI.deposit], data: l.data, topics: l.topics });
        return { block_number: Number(BigInt(l.blockNumber)), vault: l.address.toLowerCase(), who: d.args.who.toLowerCase(), amount: Number(d.args.amount) / 1e18 };
      });
    expect(expected).toHaveLength(2);
    expect(rows.map(({ time: _time, ...row }) => row)).toEqual(expected);
  });
});

describe('a protocol defined outside src/: its demo rows', () => {
  const DAYS = 0.1;
  let dir: string;
  let store: Store;
  let app: FastifyInstance;
  let key: string;
  let first: number;
  let last: number;

  beforeAll(async () => {
    process.env.CHAINQ_PROTOCOLS = path.join(import.meta.dirname, 'sample', 'index.ts');
    const { createStore } = await import('../../src/store/openStore.ts');
    const { createApp } = await import('../../src/server/createApp.ts');
    const { createKey } = await import('../../src/metering/keys.ts');
    const { generateDemo, DEMO_START_BLOCKS } = await import('../../src/demo/generate.ts');
    const { blockSeconds } = await import('../../src/catalog/networks.ts');
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-sample-demo-'));
    store = await createStore({ dataDir: dir, threads: 2 });
    await generateDemo(store, { days: DAYS, only: ['evm/sample'] });
    app = await createApp({ store });
    ({ key } = await createKey(store, { plan: 'unlimited' }));
    first = DEMO_START_BLOCKS.ETH ?? 0;
    last = first + Math.floor((DAYS * 86_400) / blockSeconds('ETH')) - 1;
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await store?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
    delete process.env.CHAINQ_PROTOCOLS;
  });

  it('are generated from the description in its folder and served over the demo window', async () => {
    const r = await app.inject({ method: 'GET', url: `/v1/evm/sample/events/deposit?network=ETH&block_start=${first}&block_end=${last}`, headers: { 'x-api-key': key } });
    expect(r.statusCode, r.body).toBe(200);
    const rows = r.json().events as { block_number: number; vault: string; who: string; amount: number }[];
    expect(rows).toHaveLength(Math.round(SAMPLE_DEMO_PER_DAY * DAYS));
    for (const row of rows) {
      expect(row.vault).toBe(SAMPLE_DEMO_VAULT);
      expect(row.who).toMatch(/^0x[0-9a-f]{40}$/);
      // Pareto-tailed with scale 1: never below one token.
      expect(row.amount).toBeGreaterThanOrEqual(1);
      expect(row.block_number).toBeGreaterThanOrEqual(first);
      expect(row.block_number).toBeLessThanOrEqual(last);
    }
    expect(new Set(rows.map((x) => x.who)).size).toBeGreaterThan(10);
  });
});
