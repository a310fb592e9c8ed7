/**
 * The `chainq ingest evm` command line of the end-to-end tests, in one
 * place: one network of one node (ETH unless told), no confirmations unless
 * told, JSON log lines; a fixed range, or following the head.
 */
import { spawnCli, type RunningCli } from './cli.ts';

export interface IngestEvmOptions {
  readonly rpc: string;
  readonly network?: string;
  readonly from: number;
  /** The last block of a fixed range; a run that follows the head has none. */
  readonly to?: number;
  /** Follows the head, asking the node every `pollInterval` seconds. */
  readonly follow?: { readonly pollInterval: number };
  readonly confirmations?: number;
  readonly batchBlocks?: number;
  readonly concurrency?: number;
  readonly only?: string;
  /** A store URL other than the data directory's own DuckDB file. */
  readonly store?: string;
  readonly data?: string;
  readonly protocols?: string;
}

/** The arguments of the run `o` describes, then `extra`. */
export function ingestEvmArgs(o: IngestEvmOptions, ...extra: readonly string[]): string[] {
  const option = (flag: string, value: string | number | undefined) => (value === undefined ? [] : [flag, String(value)]);
  return [
    'ingest',
    'evm',
    ...option('--network', o.network ?? 'ETH'),
    ...option('--rpc', o.rpc),
    ...(o.follow ? ['--follow'] : []),
    ...option('--from', o.from),
    ...option('--to', o.to),
    ...option('--confirmations', o.confirmations ?? 0),
    ...option('--poll-interval', o.follow?.pollInterval),
    ...option('--batch-blocks', o.batchBlocks),
    ...option('--concurrency', o.concurrency),
    ...option('--only', o.only),
    ...option('--store', o.store),
    ...option('--data', o.data),
    ...option('--protocols', o.protocols),
    '--log',
    ...extra,
  ];
}

/**
 * Follows the node from block 1 into the server that owns `dir`, polling
 * every 0.1 s: the command hands the job to the server; resolves once the
 * server runs it.
 */
export async function followInServer(rpc: string, dir: string, opts: { readonly confirmations?: number; readonly batchBlocks?: number } = {}): Promise<RunningCli> {
  const follower = spawnCli(ingestEvmArgs({ rpc, from: 1, follow: { pollInterval: 0.1 }, data: dir, ...opts }));
  await follower.waitFor((l) => typeof l.msg === 'string' && /running in the server/.test(l.msg));
  return follower;
}
