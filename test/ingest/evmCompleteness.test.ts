/**
 * `ingest evm` against a node that leaves logs out: a proxy in front of a
 * real anvil drops or cuts logs in eth_getLogs and eth_getBlockReceipts
 * answers. Each lie must fail the batch without coverage, naming the block;
 * the same run against the honest node then covers the range whole.
 */
import { encodeFunctionData, type Abi, type Hex } from 'viem';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { erc20Transfer } from '../../src/protocols/erc20/catalog.ts';
import { ERC20_DATASET } from '../../src/protocols/erc20/decoder.ts';
import { NATIVE_DATASET } from '../../src/protocols/native/decoder.ts';
import { ingestEvm } from '../../src/ingest/evm/ingestEvm.ts';
import type { RpcLog } from '../../src/ingest/rpc/getLogs.ts';
import type { Store } from '../../src/store/types.ts';
import { startAnvil, type Anvil } from '../helpers/anvil.ts';
import { connectChain, type Chain } from '../helpers/chain.ts';
import { startFaultyProxy, type FaultRule, type FaultyProxy } from '../helpers/faultyProxy.ts';
import { count, coverage, memoryStore } from './helpers.ts';

interface RpcRequest {
  readonly id: unknown;
  readonly method: string;
  readonly params: readonly unknown[];
}
interface RpcAnswer {
  readonly id: unknown;
  readonly result?: unknown;
}
type Edit = (method: string, params: readonly unknown[], result: unknown) => unknown;

/** A proxy rule that forwards everything and lets `edit` change each result (single and batch requests alike). */
const lying =
  (edit: Edit): FaultRule =>
  (request) => ({
    rewrite: (answer) => {
      const requests = (Array.isArray(request) ? request : [request]) as RpcRequest[];
      const byId = new Map(requests.map((r) => [r.id, r]));
      const one = (a: RpcAnswer) => {
        const r = byId.get(a.id);
        return r && a.result !== undefined ? { ...a, result: edit(r.method, r.params, a.result) } : a;
      };
      return Array.isArray(answer) ? (answer as RpcAnswer[]).map(one) : one(answer as RpcAnswer);
    },
  });

const num = (h: string) => Number(BigInt(h));

describe('ingest evm: logs the node leaves out', () => {
  let anvil: Anvil;
  let chain: Chain;
  let proxy: FaultyProxy;
  let store: Store;
  let from: number;
  let to: number;
  /** A block with one token Transfer and no payment. */
  let transferBlock: number;
  /** A block with a payment (its receipts are read for native transfers) and a call emitting 5 Transfer logs. */
  let mixedBlock: number;
  let transfersOnChain: number;

  beforeAll(async () => {
    anvil = await startAnvil({ chainId: 1 });
    chain = await connectChain(anvil.url);
    const [deployer, alice, bob, carol] = chain.accounts as [Hex, Hex, Hex, Hex];
    const token = await chain.deploy('TestToken', ['Six', 'SIX', 6]);
    const spammer = await chain.deploy('LogSpammer');
    from = (await chain.blockNumber()) + 1;
    await chain.send('TestToken', token, 'mint', [alice, 10n ** 12n]);
    await chain.send('TestToken', token, 'transfer', [bob, 1234n], { from: alice });
    transferBlock = await chain.blockNumber();
    await chain.pay(bob, carol, 10n ** 15n);
    // Two transactions in one block: a payment and a burst of logs.
    await anvil.rpc('evm_setAutomine', [false]);
    await anvil.rpc('eth_sendTransaction', [{ from: carol, to: deployer, value: '0x5af3107a4000' }]);
    await anvil.rpc('eth_sendTransaction', [{ from: deployer, to: spammer, data: encodeFunctionData({ abi: chain.artifacts.LogSpammer!.abi as Abi, functionName: 'spam', args: [5n, 700n] }) }]);
    await anvil.rpc('evm_mine', []);
    await anvil.rpc('evm_setAutomine', [true]);
    mixedBlock = await chain.blockNumber();
    await chain.send('TestToken', token, 'transfer', [carol, 99n], { from: bob });
    to = await chain.blockNumber();
    const logs = await anvil.rpc<RpcLog[]>('eth_getLogs', [{ fromBlock: `0x${from.toString(16)}`, toBlock: `0x${to.toString(16)}`, topics: [erc20TransferTopic] }]);
    transfersOnChain = logs.filter((l) => l.topics.length === 3).length;
    expect(logs.filter((l) => num(l.blockNumber) === mixedBlock)).toHaveLength(5);
    proxy = await startFaultyProxy(anvil.url);
  }, 60_000);
  afterAll(async () => {
    await proxy?.close();
    await anvil?.stop();
  });
  beforeEach(async () => {
    proxy.rule = () => null;
    store = await memoryStore();
  });
  afterEach(async () => store.close());

  const erc20TransferTopic = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
  let notices: string[] = [];
  const run = () =>
    ingestEvm(store, {
      network: 'ETH',
      rpcUrl: proxy.url,
      from,
      to,
      confirmations: 0,
      only: ['erc20', 'native'],
      traces: false,
      batchBlocks: 1,
      onEvent: (e) => {
        if (e.type === 'notice') notices.push(e.message);
      },
    });

  /** Drops logs of `block` from eth_getLogs answers, and from its eth_getBlockReceipts answer too when `alsoReceipts`. */
  const dropLogs = (block: number, drop: (logIndex: number, all: number) => boolean, alsoReceipts = false): Edit => {
    let blockHash: string | undefined;
    return (method, params, result) => {
      if (method === 'eth_getLogs') {
        const logs = result as RpcLog[];
        const all = logs.filter((l) => num(l.blockNumber) === block).length;
        return logs.filter((l) => num(l.blockNumber) !== block || !drop(num(l.logIndex), all));
      }
      if (method === 'eth_getBlockByNumber' && num(String(params[0])) === block) blockHash = (result as { hash: string }).hash;
      if (alsoReceipts && method === 'eth_getBlockReceipts' && params[0] === blockHash) {
        const receipts = result as { logs: RpcLog[] }[];
        const all = receipts.reduce((n, r) => n + r.logs.length, 0);
        return receipts.map((r) => ({ ...r, logs: r.logs.filter((l) => !drop(num(l.logIndex), all)) }));
      }
      return result;
    };
  };

  /** The lie fails the run naming the block, which stays uncovered; the honest node then fills the range. */
  async function expectCaught(block: number, message: RegExp): Promise<void> {
    notices = [];
    const err = await run().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toContain(`ETH block ${block}`);
    expect((err as Error).message).toMatch(message);
    // Each of the 5 fetches before the last was reported as it was retried.
    expect(notices.filter((n) => n.includes(`ETH block ${block}`) && n.endsWith(`fetching blocks ${block}–${block} again`))).toHaveLength(5);
    for (const dataset of [ERC20_DATASET, NATIVE_DATASET]) {
      expect(await coverage(store, dataset, 'ETH')).toEqual(block > from ? [[from, block - 1]] : []);
    }
    proxy.rule = () => null;
    await run();
    for (const dataset of [ERC20_DATASET, NATIVE_DATASET]) expect(await coverage(store, dataset, 'ETH')).toEqual([[from, to]]);
    expect(await count(store, erc20Transfer.table.name)).toBe(transfersOnChain);
  }

  it('passes every check against the honest node', async () => {
    await run();
    expect(await coverage(store, ERC20_DATASET, 'ETH')).toEqual([[from, to]]);
    expect(await count(store, erc20Transfer.table.name)).toBe(transfersOnChain);
  });

  it('fails a block whose bloom holds matching logs when eth_getLogs returns none, once its receipts show them', async () => {
    proxy.rule = lying(dropLogs(transferBlock, () => true));
    await expectCaught(transferBlock, /eth_getLogs returned 0 of the 1 matching logs its receipts hold/);
  }, 60_000);

  it('fails a block whose receipts hold more matching logs than eth_getLogs returned', async () => {
    proxy.rule = lying(dropLogs(mixedBlock, (i) => i === 2));
    await expectCaught(mixedBlock, /eth_getLogs returned 4 of the 5 matching logs its receipts hold \(missing log indices 2\)/);
  }, 60_000);

  it('fails a block whose receipts have a hole in their log indices', async () => {
    proxy.rule = lying(dropLogs(mixedBlock, (i) => i === 2, true));
    await expectCaught(mixedBlock, /log index 3 where 2 comes next/);
  }, 60_000);

  it("fails a block whose receipts lost their last logs, by the header's bloom", async () => {
    proxy.rule = lying(dropLogs(mixedBlock, (i, all) => i === all - 1, true));
    await expectCaught(mixedBlock, /do not make the header's logs bloom/);
  }, 60_000);
});
