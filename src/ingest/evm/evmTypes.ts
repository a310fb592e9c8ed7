/** What `ingest evm` is given besides the options every chain adapter takes (chain/chainRun.ts). */
import type { CustomDataset } from '../../catalog/custom/declaration.ts';
import type { ChainIngestSummary, ChainRunOptions } from '../chain/chainRun.ts';
import type { TraceSource } from '../rpc/actions.ts';
import type { RpcStats } from '../rpc/createRpc.ts';

export { IngestError } from '../chain/chainRun.ts';

/** The chain summary, whose JSON-RPC counts an EVM run always has. */
export type EvmIngestSummary = ChainIngestSummary & { readonly rpc: RpcStats };

export interface IngestEvmOptions extends ChainRunOptions {
  readonly network: string;
  /** One node's URL, or several nodes serving the same chain (requests spread over them; see createRpc). */
  readonly rpcUrl: string | readonly string[];
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
  /** Batches fetched at once. */
  readonly concurrency?: number | undefined;
  /** Requests in flight per node. */
  readonly rpcConcurrency?: number | undefined;
  /** Requests started per second per node. */
  readonly rpcMaxRate?: number | undefined;
  readonly rpcBatchSize?: number | undefined;
  /** Fixed eth_getLogs block range; default adaptive. */
  readonly getLogsRange?: number | undefined;
  /** Deepest reorg followed before giving up. */
  readonly reorgWindow?: number | undefined;
  /** Skip the check that the node's chain id is the network's. */
  readonly skipChainCheck?: boolean | undefined;
}
