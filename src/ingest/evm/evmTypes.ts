/** What `ingest evm` is given, what it reports while it runs, and what it returns. */
import type { CustomDataset } from '../../catalog/custom/declaration.ts';
import type { Interval } from '../../store/coverage.ts';
import type { NodeStatus } from '../http/nodePool.ts';
import type { TraceSource } from '../rpc/actions.ts';
import type { RpcStats } from '../rpc/createRpc.ts';
import type { DatasetPlan } from './planDatasets.ts';

export interface IngestEvmOptions {
  readonly network: string;
  /** One node's URL, or several nodes serving the same chain (requests spread over them; see createRpc). */
  readonly rpcUrl: string | readonly string[];
  readonly from?: number | undefined;
  readonly to?: number | undefined;
  readonly follow?: boolean | undefined;
  /** Blocks to stay behind the head; default per network (DEFAULT_CONFIRMATIONS). */
  readonly confirmations?: number | undefined;
  /** Operator protocols file laid over the shipped contract addresses. */
  readonly protocolsFile?: string | undefined;
  readonly only?: readonly string[] | undefined;
  /**
   * Operator-defined datasets to ingest besides the built-in ones
   * (docs/custom-datasets.md); each is saved (declared) before the run.
   */
  readonly custom?: readonly CustomDataset[] | undefined;
  /**
   * How native transfers read call traces: 'auto' (default) picks trace_block,
   * else debug_traceBlockByHash, else none; a method name insists on it; false
   * never reads traces (transaction values only).
   */
  readonly traces?: 'auto' | TraceSource | false | undefined;
  /** Fixed blocks per committed batch; default adaptive. */
  readonly batchBlocks?: number | undefined;
  /** Batches fetched at once. */
  readonly concurrency?: number | undefined;
  /** Requests in flight per node. */
  readonly rpcConcurrency?: number | undefined;
  /** Requests started per second per node. */
  readonly rpcMaxRate?: number | undefined;
  readonly rpcBatchSize?: number | undefined;
  /** Fixed eth_getLogs block range; default adaptive. */
  readonly getLogsRange?: number | undefined;
  /** Ingest [from, to] again even where it is covered. */
  readonly reingest?: boolean | undefined;
  readonly pollIntervalMs?: number | undefined;
  /** Deepest reorg followed before giving up. */
  readonly reorgWindow?: number | undefined;
  /** Skip the check that the node's chain id is the network's. */
  readonly skipChainCheck?: boolean | undefined;
  readonly signal?: AbortSignal | undefined;
  readonly onEvent?: ((e: IngestEvent) => void) | undefined;
}

export type IngestEvent =
  | { type: 'start'; network: string; datasets: readonly string[]; skipped: DatasetPlan['skipped']; traces: TraceSource | false | null; confirmations: number; head: number }
  | { type: 'plan'; ranges: readonly Interval[]; blocks: number }
  /** `datasets`: rows the batch added per dataset. */
  | { type: 'batch'; lo: number; hi: number; blocks: number; events: number; datasets: Readonly<Record<string, number>> }
  | { type: 'notice'; message: string }
  | { type: 'reorg'; ancestor: number; depth: number; detectedAt: number }
  | { type: 'caught_up'; block: number; head: number };

export interface EvmIngestSummary {
  readonly blocks: number;
  readonly events: number;
  readonly batches: number;
  readonly seconds: number;
  readonly stopped: boolean;
  readonly rpc: RpcStats;
  /** Each node's requests, failures, pace and answer time at the end of the run. */
  readonly nodes: readonly NodeStatus[];
  readonly traces: boolean | null;
}

/** A condition the operator must act on; the CLI prints its message and exits non-zero. */
export class IngestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'IngestError';
  }
}
