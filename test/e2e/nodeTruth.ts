/**
 * What the node itself says, independently of chainq's decoders: logs from
 * eth_getLogs decoded with viem's decodeEventLog and the fixtures' compiled
 * ABIs, call traces flattened by the rule docs/ingest-evm.md states, and the
 * API row each should become.
 */
import { decodeEventLog, formatUnits, toEventSelector, type Abi, type AbiEvent, type Hex } from 'viem';
import type { Chain } from '../helpers/chain.ts';

export interface NodeLog {
  readonly address: Hex;
  readonly topics: Hex[];
  readonly data: Hex;
  readonly blockNumber: Hex;
  readonly transactionHash: Hex;
  readonly transactionIndex: Hex;
  readonly logIndex: Hex;
}

export interface Decoded {
  readonly log: NodeLog;
  readonly block: number;
  readonly logIndex: number;
  readonly args: Record<string, unknown>;
}

export const units = (raw: bigint, decimals: number) => Number(formatUnits(raw, decimals));
export const lower = (a: unknown) => String(a).toLowerCase();

export function eventAbi(chain: Chain, contract: string, name: string): AbiEvent {
  const item = (chain.artifacts[contract]!.abi as Abi).find((x) => x.type === 'event' && x.name === name);
  if (!item) throw new Error(`${contract} has no event ${name}`);
  return item as AbiEvent;
}

export interface Truth {
  /** Every log of `event` emitted by `address` (or any contract) in the range, decoded by viem. */
  logs(event: AbiEvent, address?: Hex | Hex[]): Promise<Decoded[]>;
  /** ISO time of a block, as the API renders it. */
  time(block: number): Promise<string>;
  txSender(hash: Hex): Promise<Hex>;
  /** The native transfers the node's call traces show, per the documented rule. */
  nativeTransfers(): Promise<{ block: number; txIndex: number; traceIndex: number; tx: Hex; from: Hex; to: Hex; value: bigint }[]>;
}

interface Frame {
  type: string;
  from: Hex;
  to?: Hex;
  value?: Hex;
  error?: string;
  calls?: Frame[];
}

export function nodeTruth(chain: Chain, from: number, to: number): Truth {
  const times = new Map<number, string>();
  return {
    async logs(event, address) {
      const raw = await chain.rpc<NodeLog[]>('eth_getLogs', [
        {
          fromBlock: `0x${from.toString(16)}`,
          toBlock: `0x${to.toString(16)}`,
          topics: [toEventSelector(event)],
          ...(address ? { address } : {}),
        },
      ]);
      const out: Decoded[] = [];
      for (const log of raw) {
        let args: Record<string, unknown>;
        try {
          args = decodeEventLog({ abi: [event], topics: log.topics as [Hex, ...Hex[]], data: log.data, strict: true }).args as Record<string, unknown>;
        } catch {
          continue; // same signature, other shape (an ERC-721 Transfer)
        }
        out.push({ log, block: Number(BigInt(log.blockNumber)), logIndex: Number(BigInt(log.logIndex)), args });
      }
      return out;
    },
    async time(block) {
      let t = times.get(block);
      if (!t) {
        const b = await chain.rpc<{ timestamp: Hex }>('eth_getBlockByNumber', [`0x${block.toString(16)}`, false]);
        t = new Date(Number(BigInt(b.timestamp)) * 1000).toISOString().replace('.000Z', 'Z');
        times.set(block, t);
      }
      return t;
    },
    async txSender(hash) {
      return lower((await chain.rpc<{ from: Hex }>('eth_getTransactionByHash', [hash])).from) as Hex;
    },
    async nativeTransfers() {
      const out: Awaited<ReturnType<Truth['nativeTransfers']>> = [];
      for (let n = from; n <= to; n++) {
        const traces = await chain.rpc<{ txHash: Hex; result: Frame }[]>('debug_traceBlockByNumber', [`0x${n.toString(16)}`, { tracer: 'callTracer' }]);
        traces.forEach((t, txIndex) => {
          let i = 0;
          const walk = (f: Frame, failed: boolean) => {
            const index = i++;
            const bad = failed || !!f.error;
            const value = BigInt(f.value ?? '0x0');
            if (!bad && value > 0n && ['CALL', 'CREATE', 'CREATE2', 'SELFDESTRUCT'].includes(f.type)) {
              out.push({ block: n, txIndex, traceIndex: index, tx: t.txHash, from: lower(f.from) as Hex, to: lower(f.to) as Hex, value });
            }
            for (const c of f.calls ?? []) walk(c, bad);
          };
          walk(t.result, false);
        });
      }
      return out;
    },
  };
}
