/**
 * `chainq ingest evm`: fill the store from an EVM JSON-RPC node. On a
 * terminal a progress bar shows blocks, events, events per second and the
 * time left; otherwise (or with --log) every step is a JSON log line on
 * stderr with stable keys (`event`: start, plan, batch, notice, reorg,
 * caught_up, done).
 */
import cliProgress from 'cli-progress';
import { type Command, Option } from 'commander';
import path from 'node:path';
import { protocolRegistry } from '../protocols/index.ts';
import type { ChainEvent } from '../ingest/chain/chainRun.ts';
import { createLogger } from '../internal/logger.ts';
import type { EvmJobSpec } from '../operator/jobSpec.ts';
import type { JobMessage } from '../operator/runJob.ts';
import { ingestGroup } from './ingestGroup.ts';
import { runIngestJob } from './ingestJob.ts';
import { DATA_HELP, DEFAULT_DATA_DIR, NODES_HELP, STORE_HELP, blockNumber, defined, nodeUrls, oneOrMany, positiveNumber, protocolsFile } from './options.ts';

interface IngestEvmCliOptions {
  store?: string;
  network: string;
  rpc: string[];
  from?: number;
  to?: number;
  follow?: boolean;
  confirmations?: number;
  data: string;
  protocols?: string;
  only?: string[];
  custom?: string[];
  traces: 'auto' | 'trace_block' | 'debug_trace' | 'off';
  batchBlocks?: number;
  concurrency?: number;
  rpcConcurrency?: number;
  rpcMaxRate?: number;
  rpcBatch?: number;
  getLogsRange?: number;
  force?: boolean;
  pollInterval: number;
  reorgWindow?: number;
  skipChainCheck?: boolean;
  log?: boolean;
  memoryLimit?: string;
  threads: number;
  detach?: boolean;
}

function count(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`expected a whole number, got '${value}'`);
  return n;
}

function protocolList(value: string): string[] {
  const list = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const names = protocolRegistry.names;
  for (const p of list) if (!names.includes(p)) throw new Error(`unknown protocol '${p}'; expected some of ${names.join(', ')}`);
  return list;
}

export function registerIngest(program: Command): void {
  ingestGroup(program)
    .command('evm')
    .description('ingest every EVM dataset of one network from a JSON-RPC node, protocol by protocol (listed below)')
    .addHelpText('after', `\nProtocols (--only):\n${protocolRegistry.help}\n`)
    .requiredOption('--network <code>', 'network code, e.g. ETH, ARB, BASE')
    .requiredOption('--rpc <url>', `JSON-RPC endpoint (http or https); ${NODES_HELP}`, nodeUrls)
    .option('--from <block>', 'first block, inclusive (default: after the last block ingested for the network)', blockNumber)
    .option('--to <block>', 'last block, inclusive (default: head − confirmations)', blockNumber)
    .option('--follow', 'keep ingesting new blocks as they reach --confirmations, following reorgs')
    .option('--confirmations <n>', 'blocks to stay behind the head (default: ETH 65, POLYGON 200, ARB 240, others 30)', count)
    .option('--data <dir>', DATA_HELP, DEFAULT_DATA_DIR)
    .option('--store <target>', STORE_HELP)
    .option('--protocols <file>', 'contract addresses laid over the shipped ones (default: <data>/protocols.json when present)')
    .option(
      '--custom <file>',
      'an operator-defined event dataset (JSON: name, abi, networks; docs/custom-datasets.md) to ingest; repeat for several. Without --only, the run fills only these',
      (v: string, prev: string[] | undefined) => [...(prev ?? []), v],
    )
    .option('--only <protocols>', `comma-separated subset of ${protocolRegistry.names.join(',')}`, protocolList)
    .addOption(
      new Option('--traces <method>', 'call traces for internal native transfers: auto picks trace_block, else debug_traceBlockByHash; off reads transaction values only')
        .choices(['auto', 'trace_block', 'debug_trace', 'off'])
        .default('auto'),
    )
    .option('--batch-blocks <n>', 'blocks per committed batch (default: adaptive)', positiveInt)
    .option('--concurrency <n>', 'batches fetched at once (default 4)', positiveInt)
    .option('--rpc-concurrency <n>', 'HTTP requests in flight at once per node (default 16); halved on a rate limit or timeout, regained after successes', positiveInt)
    .option('--rpc-max-rate <n>', 'requests started per second per node (default: no cap); halved on a rate limit or timeout, regained after successes', positiveNumber)
    .option('--rpc-batch <n>', 'calls per JSON-RPC batch (default 100; shrinks when the node refuses)', positiveInt)
    .option('--get-logs-range <n>', 'fixed eth_getLogs block range (default: adaptive)', positiveInt)
    .option('--force', 'ingest the range again even where the store covers it')
    .option('--poll-interval <seconds>', 'with --follow: seconds between polls of the head', positiveNumber, 2)
    .option('--reorg-window <n>', 'deepest reorg to follow before stopping with an error (default: max(128, 2 × confirmations))', positiveInt)
    .option('--skip-chain-check', "do not check that the node's chain id is the network's")
    .option('--log', 'JSON log lines instead of the progress bar')
    .option('--detach', 'with a server running: leave the job running in it and return (see chainq status, chainq jobs stop)')
    .addOption(new Option('--memory-limit <size>', 'DuckDB memory limit, e.g. 2GB (without a server; a server keeps its own)'))
    // The batches in flight already run their queries side by side; DuckDB's worker threads mostly spin waiting on them.
    .option('--threads <n>', 'DuckDB threads per query', positiveInt, 1)
    .action(async (opts: IngestEvmCliOptions) => runIngestEvm(opts));
}

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`expected a positive whole number, got '${value}'`);
  return n;
}

async function runIngestEvm(opts: IngestEvmCliOptions): Promise<void> {
  const logger = createLogger();
  const bar = !opts.log && process.stderr.isTTY ? createBar() : null;
  const t0 = performance.now();
  let events = 0;
  let blocks = 0;
  const show = (m: JobMessage) => {
    if (m.type !== 'evm') return;
    const e = m.event;
    if (e.type === 'batch') {
      events += e.events;
      blocks += e.blocks;
    }
    if (bar) bar.onEvent(e, events, blocks, t0);
    else {
      const { type, ...fields } = e;
      logger.info({ event: type, ...fields }, type);
    }
  };
  const note = (text: string) => (bar ? bar.say(text) : logger.info({ event: 'notice' }, text));
  const spec: EvmJobSpec = {
    source: 'evm',
    network: opts.network,
    rpc: oneOrMany(opts.rpc),
    ...defined({
      from: opts.from,
      to: opts.to,
      follow: opts.follow,
      confirmations: opts.confirmations,
      protocols: protocolsFile(opts),
      only: opts.only,
      custom: opts.custom?.map((f) => path.resolve(f)),
      traces: opts.traces,
      batchBlocks: opts.batchBlocks,
      concurrency: opts.concurrency,
      rpcConcurrency: opts.rpcConcurrency,
      rpcMaxRate: opts.rpcMaxRate,
      rpcBatch: opts.rpcBatch,
      getLogsRange: opts.getLogsRange,
      force: opts.force,
      pollInterval: opts.pollInterval,
      reorgWindow: opts.reorgWindow,
      skipChainCheck: opts.skipChainCheck,
    }),
  };
  const end = await runIngestJob(
    { data: opts.data, store: opts.store, threads: opts.threads, detach: opts.detach ?? false, ...(opts.memoryLimit ? { memoryLimit: opts.memoryLimit } : {}) },
    spec,
    show,
    note,
  );
  bar?.stop();
  if (end.type === 'detached') return;
  if (end.type === 'failed') {
    if (end.interrupted) {
      process.exitCode = 130;
      return;
    }
    throw new Error(end.message);
  }
  if (end.result.source !== 'evm') return;
  const summary = end.result.summary;
  // A chain summary counts blocks written as `done` and rows as `rows`; this command has always called them blocks and events.
  const rate = summary.seconds > 0 ? Math.round(summary.rows / summary.seconds) : 0;
  logger.info(
    { event: 'done', blocks: summary.done, events: summary.rows, batches: summary.batches, seconds: summary.seconds, stopped: summary.stopped, rpc: summary.rpc, nodes: summary.nodes },
    'done',
  );
  process.stdout.write(
    `${summary.stopped ? 'stopped' : 'done'}: ${summary.done.toLocaleString('en-US')} blocks, ${summary.rows.toLocaleString('en-US')} events in ${summary.seconds.toFixed(1)} s (${rate.toLocaleString('en-US')} events/s)\n`,
  );
  // Interrupted (Ctrl-C, SIGTERM; the normal way to end --follow): committed work is kept, exit as the other ingest commands do.
  if (end.interrupted) process.exitCode = 130;
}

/** The options given, without the absent ones (a job description holds no undefined). */
interface Bar {
  onEvent(e: ChainEvent, events: number, blocks: number, t0: number): void;
  say(text: string): void;
  stop(): void;
}

function createBar(): Bar {
  const multi = new cliProgress.MultiBar(
    {
      format: '{bar} {percentage}% | blocks {value}/{total} | {events} events | {eps} events/s | ETA {eta_formatted}',
      hideCursor: true,
      etaBuffer: 50,
      gracefulExit: true,
    },
    cliProgress.Presets.shades_classic,
  );
  let bar: cliProgress.SingleBar | null = null;
  let done = 0;
  const say = (text: string) => multi.log(`${text}\n`);
  return {
    onEvent(e, events, blocks, t0) {
      const payload = () => ({ events: events.toLocaleString('en-US'), eps: Math.round(events / Math.max(0.001, (performance.now() - t0) / 1000)).toLocaleString('en-US') });
      switch (e.type) {
        case 'start':
          say(`ingesting ${e.network} (head ${e.head}, ${e.confirmations} confirmations): ${e.datasets.join(', ')}`);
          if (e.traces) say(`native transfers: transaction values and internal calls (call traces by ${e.traces})`);
          if (e.traces === false) say('native transfers: transaction values only, no internal transfers (no call traces)');
          for (const s of e.skipped) say(`not ingested: ${s.dataset}: ${s.reason}`);
          break;
        case 'plan':
          if (!bar) bar = multi.create(e.blocks, 0, payload());
          else bar.setTotal(done + e.blocks);
          break;
        case 'batch':
          done = blocks;
          bar?.update(done, payload());
          break;
        case 'notice':
          say(e.message);
          break;
        case 'reorg':
          say(`reorg: blocks above ${e.ancestor} were replaced (found at block ${e.detectedAt}, ${e.depth} blocks deep); they are ingested again`);
          break;
        case 'caught_up':
          bar?.update(done, payload());
          break;
      }
    },
    say,
    stop: () => multi.stop(),
  };
}
