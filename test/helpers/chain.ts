/**
 * Deploying the Solidity fixtures (test/contracts) and sending transactions
 * to an anvil node from its unlocked dev accounts.
 */
import { encodeDeployData, encodeFunctionData, type Abi, type Hex } from 'viem';
import { loadArtifacts, type Artifact } from '../contracts/compile.ts';
import { rpcCall } from './anvil.ts';

export interface Receipt {
  readonly transactionHash: Hex;
  readonly blockNumber: Hex;
  readonly status: Hex;
  readonly contractAddress: Hex | null;
  readonly from: Hex;
}

export interface SendOptions {
  readonly from?: Hex;
  readonly value?: bigint;
  /** Given, anvil skips estimation: needed for a transaction meant to fail. */
  readonly gas?: bigint;
}

export interface Chain {
  readonly url: string;
  readonly accounts: readonly Hex[];
  readonly artifacts: Record<string, Artifact>;
  rpc<T = unknown>(method: string, params?: readonly unknown[]): Promise<T>;
  deploy(name: string, args?: readonly unknown[], opts?: SendOptions): Promise<Hex>;
  /** Calls `fn` of contract `name` at `to`; resolves with the mined receipt. */
  send(name: string, to: Hex, fn: string, args?: readonly unknown[], opts?: SendOptions): Promise<Receipt>;
  /** A plain payment. */
  pay(from: Hex, to: Hex, value: bigint, gas?: bigint): Promise<Receipt>;
  blockNumber(): Promise<number>;
}

const hex = (n: bigint) => `0x${n.toString(16)}` as Hex;

export async function connectChain(url: string): Promise<Chain> {
  const rpc = <T>(method: string, params: readonly unknown[] = []) => rpcCall<T>(url, method, params);
  const accounts = (await rpc<Hex[]>('eth_accounts')).map((a) => a.toLowerCase() as Hex);
  const artifacts = loadArtifacts();
  const abiOf = (name: string) => {
    const a = artifacts[name];
    if (!a) throw new Error(`no artifact ${name}`);
    return a;
  };
  async function transact(tx: Record<string, unknown>, opts: SendOptions): Promise<Receipt> {
    const hash = await rpc<Hex>('eth_sendTransaction', [
      {
        from: opts.from ?? accounts[0],
        ...tx,
        ...(opts.value !== undefined ? { value: hex(opts.value) } : {}),
        ...(opts.gas !== undefined ? { gas: hex(opts.gas) } : {}),
      },
    ]);
    for (;;) {
      const r = await rpc<Receipt | null>('eth_getTransactionReceipt', [hash]);
      if (r) return r;
      await new Promise((res) => setTimeout(res, 5));
    }
  }
  return {
    url,
    accounts,
    artifacts,
    rpc,
    async deploy(name, args = [], opts = {}) {
      const a = abiOf(name);
      const data = encodeDeployData({ abi: a.abi as Abi, bytecode: a.bytecode, args: args as unknown[] });
      const r = await transact({ data }, opts);
      if (r.status !== '0x1' || !r.contractAddress) throw new Error(`deploying ${name} failed`);
      return r.contractAddress.toLowerCase() as Hex;
    },
    async send(name, to, fn, args = [], opts = {}) {
      const data = encodeFunctionData({ abi: abiOf(name).abi as Abi, functionName: fn, args: args as unknown[] });
      const r = await transact({ to, data }, opts);
      if (r.status !== '0x1' && opts.gas === undefined) throw new Error(`${name}.${fn} reverted`);
      return r;
    },
    pay: (from, to, value, gas) => transact({ to }, { from, value, ...(gas ? { gas } : {}) }),
    async blockNumber() {
      return Number(BigInt(await rpc<Hex>('eth_blockNumber')));
    },
  };
}
