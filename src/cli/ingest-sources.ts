/**
 * `chainq ingest venue_a | venue_b | tron | btc`: the adapters of
 * src/ingest/ behind a progress bar, run by the server holding the store when
 * one is running. Every run is resumable (each unit of
 * work commits with its checkpoint) and can be interrupted with Ctrl-C.
 */
import type { Command } from 'commander';
import { absoluteSource } from '../ingest/http/fileSource.ts';
import { DEFAULT_RETRY } from '../ingest/http/retry.ts';
import { TRON_DATASETS, type TronDatasetName } from '../ingest/tron/datasets.ts';
import { VENUE_A_DEFAULT_ARCHIVE } from '../ingest/venues/ingestVenueA.ts';
import { VENUE_B_DATASETS, type VenueBDataset } from '../ingest/venues/venueBDatasets.ts';
import { VENUE_B_DEFAULT_INFO_URL } from '../ingest/venues/venueBInfo.ts';
import { VENUE_A_KINDS, type VenueAKind } from '../ingest/venues/venueAArchive.ts';
import type { JobSpec } from '../operator/jobSpec.ts';
import type { JobMessage } from '../operator/runJob.ts';
import { VENUE_TOKEN, venueTokenRefusal } from '../query/venueToken.ts';
import { ingestGroup } from './ingestGroup.ts';
import { runIngestJob } from './ingestJob.ts';
import { DATA_HELP, DEFAULT_DATA_DIR, NODES_HELP, STORE_HELP, defined, nodeUrls, oneOrMany, positiveNumber, timeOption } from './options.ts';
import { createProgressBar } from './progressBar.ts';

interface CommonOptions {
  data: string;
  store?: string;
  retries: number;
  retryDelay: number;
  timeout: number;
  quiet?: boolean;
  json?: boolean;
}

const nonNegativeInt = (v: string): number => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`expected a whole number, got '${v}'`);
  return n;
};

const list =
  <T extends string>(allowed: readonly T[], what: string) =>
  (v: string): T[] => {
    const items = v
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const out: T[] = [];
    for (const i of items) {
      if (!isOneOf(allowed, i)) throw new Error(`unknown ${what} '${i}'; expected ${allowed.join(', ')}`);
      out.push(i);
    }
    return out;
  };

function isOneOf<T extends string>(allowed: readonly T[], v: string): v is T {
  return allowed.some((a) => a === v);
}

const TRON_DATASET_NAMES = Object.keys(TRON_DATASETS).filter((k): k is TronDatasetName => Object.hasOwn(TRON_DATASETS, k));

const tokens = (v: string): string[] => {
  const out = v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const t of out) if (!VENUE_TOKEN.test(t)) throw new Error(`--token ${venueTokenRefusal(t)}`);
  return out;
};

function withCommon(cmd: Command): Command {
  return cmd
    .option('--data <dir>', DATA_HELP, DEFAULT_DATA_DIR)
    .option('--store <target>', STORE_HELP)
    .option('--retries <n>', 'retries of a failing request (HTTP 429/5xx, network errors)', nonNegativeInt, DEFAULT_RETRY.retries)
    .option('--retry-delay <ms>', 'first backoff; doubles on each retry (a Retry-After header wins)', nonNegativeInt, DEFAULT_RETRY.baseDelayMs)
    .option('--timeout <s>', 'per-request timeout in seconds', positiveNumber, 120)
    .option('--quiet', 'no progress bar; only notes and the summary')
    .option('--json', 'print the summary as JSON')
    .option('--detach', 'with a server running: leave the job running in it and return (see chainq status, chainq jobs stop)');
}

/** Runs the job (in the server holding the store, or here), draws its progress and prints what it did. */
async function runIngest(opts: CommonOptions & { detach?: boolean }, label: string, unit: string, spec: JobSpec): Promise<void> {
  const progress = createProgressBar(opts.quiet ? { quiet: true } : {});
  const show = (m: JobMessage) => {
    if (m.type !== 'progress') return;
    switch (m.call) {
      case 'start':
        progress.start(m.label, m.total);
        break;
      case 'advance':
        progress.advance(m.n, m.unit);
        break;
      case 'note':
        progress.note(m.message);
        break;
      case 'stop':
        progress.stop();
        break;
    }
  };
  const end = await runIngestJob({ data: opts.data, store: opts.store, detach: opts.detach ?? false }, spec, show, (text: string) => progress.note(text));
  progress.stop();
  if (end.type === 'detached') return;
  if (end.type === 'failed') {
    if (end.interrupted) {
      process.stderr.write(`${label}: interrupted; rerun the same command to continue from the last checkpoint\n`);
      process.exitCode = 130;
      return;
    }
    throw new Error(end.message);
  }
  if (end.result.source === 'evm' || end.result.source === 'verify') return;
  const { summary, seconds } = end.result;
  if (opts.json) {
    process.stdout.write(`${JSON.stringify({ source: label, seconds, ...summary })}\n`);
  } else {
    const lines = [`${label}: ${summary.done} ${unit}(s) ingested, ${summary.skipped} already ingested, ${summary.rows.toLocaleString('en-US')} rows written in ${seconds.toFixed(1)} s`];
    for (const m of summary.missing) lines.push(`  missing: ${m}`);
    for (const p of summary.partial) lines.push(`  partial (stored, not marked complete): ${p}`);
    for (const f of summary.failed) lines.push(`  FAILED: ${f}`);
    process.stdout.write(`${lines.join('\n')}\n`);
  }
  if (end.interrupted) process.exitCode = 130;
  else if (summary.failed.length) process.exitCode = 1;
}

interface NodeOptions {
  nodeConcurrency?: number;
  nodeMaxRate?: number;
}

const positiveInt = (v: string): number => {
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`expected a positive whole number, got '${v}'`);
  return n;
};

const NODE_CONCURRENCY_HELP = 'requests in flight per node (default 64); halved on a rate limit or timeout, regained after successes';
const NODE_MAX_RATE_HELP = 'requests started per second per node (default: no cap); halved on a rate limit or timeout, regained after successes';

/** Node URLs from an environment variable, comma-separated like the option. */
function nodeUrlsFromEnv(name: string): string[] | undefined {
  const v = process.env[name];
  return v ? nodeUrls(v, undefined) : undefined;
}

const nodeSpec = (opts: NodeOptions) => defined({ nodeConcurrency: opts.nodeConcurrency, nodeMaxRate: opts.nodeMaxRate });

/** The common options' part of a job description. */
const httpSpec = (opts: CommonOptions) => ({ retries: opts.retries, retryDelay: opts.retryDelay, timeout: opts.timeout });
/** The options given, without the absent ones (a job description holds no undefined). */
export function registerIngestSources(program: Command): void {
  const ingest = ingestGroup(program);
  registerVenueA(ingest);
  registerVenueB(ingest);
  registerTron(ingest);
  registerBtc(ingest);
}

function registerVenueA(ingest: Command): void {
  withCommon(
    ingest
      .command('venue_a')
      .description('venue_a USDT-margined futures from its public data archive: trades, 1m klines, book depth, metrics, funding')
      .requiredOption('--token <list>', 'token symbols, comma-separated (BTC,ETH); the market is <TOKEN><quote>', tokens)
      .requiredOption('--since <time>', 'first day (inclusive): YYYY-MM-DD, ISO 8601 or Unix seconds', timeOption)
      .requiredOption('--until <time>', 'end (exclusive)', timeOption)
      .option('--archive-url <url|dir>', 'archive base URL, or a local directory in the same layout', process.env.CHAINQ_VENUE_A_ARCHIVE ?? VENUE_A_DEFAULT_ARCHIVE)
      .option('--kinds <list>', `files to load: ${VENUE_A_KINDS.join(',')}`, list(VENUE_A_KINDS, 'kind'))
      .option('--quote <asset>', 'quote asset of the markets', 'USDT')
      .option('--concurrency <n>', 'files downloaded at once', positiveNumber, 4)
      .option('--force', 're-ingest files that are already ingested')
      .option('--refresh', 'for files already ingested, re-ingest those whose archive checksum changed'),
  ).action(
    async (
      opts: CommonOptions & { token: string[]; since: number; until: number; archiveUrl: string; kinds?: VenueAKind[]; quote: string; concurrency: number; force?: boolean; refresh?: boolean },
    ) => {
      await runIngest(opts, 'venue_a', 'file', {
        source: 'venue_a',
        token: opts.token,
        since: opts.since,
        until: opts.until,
        archiveUrl: absoluteSource(opts.archiveUrl),
        quote: opts.quote,
        concurrency: opts.concurrency,
        ...defined({ kinds: opts.kinds, force: opts.force, refresh: opts.refresh }),
        ...httpSpec(opts),
      });
    },
  );
}

function registerVenueB(ingest: Command): void {
  withCommon(
    ingest
      .command('venue_b')
      .description('venue_b perpetuals: fills (and trades, positions derived from them) from node fills files; candles and funding from the info API')
      .requiredOption('--token <list>', 'perpetual coins as the venue spells them, comma-separated (BTC,ETH,kPEPE); spot pairs (@107) are not supported', tokens)
      .requiredOption('--since <time>', 'start (inclusive): YYYY-MM-DD, ISO 8601 or Unix seconds', timeOption)
      .requiredOption('--until <time>', 'end (exclusive)', timeOption)
      .option('--source <url|dir>', "node data root holding node_fills_by_block/hourly/ (a node's ~/hl/data, or a mirror of the public bucket)", process.env.CHAINQ_VENUE_B_SOURCE)
      .option('--info-url <url>', 'info API endpoint', process.env.CHAINQ_VENUE_B_INFO_URL ?? VENUE_B_DEFAULT_INFO_URL)
      .option('--datasets <list>', `what to load: ${VENUE_B_DATASETS.join(',')} (fills also derives trades and positions)`, list(VENUE_B_DATASETS, 'dataset'))
      .option('--force', 're-ingest hours and days that are already ingested'),
  ).action(async (opts: CommonOptions & { token: string[]; since: number; until: number; source?: string; infoUrl: string; datasets?: VenueBDataset[]; force?: boolean }) => {
    await runIngest(opts, 'venue_b', 'unit', {
      source: 'venue_b',
      token: opts.token,
      since: opts.since,
      until: opts.until,
      infoUrl: opts.infoUrl,
      ...defined({ sourceDir: opts.source ? absoluteSource(opts.source) : undefined, datasets: opts.datasets, force: opts.force }),
      ...httpSpec(opts),
    });
  });
}

function registerTron(ingest: Command): void {
  withCommon(
    ingest
      .command('tron')
      .description("Tron TRX (TransferContract) and TRC-20 transfers from a full node's HTTP API")
      .option('--api <url>', `full node HTTP API, e.g. http://fullnode:8090; ${NODES_HELP}`, nodeUrls)
      .option('--from <block>', 'first block (default: after the last ingested one)', nonNegativeInt)
      .option('--to <block>', 'last block (default: the head less --confirmations)', nonNegativeInt)
      .option('--follow', 'after the range, keep ingesting new blocks as they are confirmed')
      .option('--confirmations <n>', 'blocks behind the head treated as final', nonNegativeInt, 20)
      .option('--datasets <list>', 'native,trc20', list(TRON_DATASET_NAMES, 'dataset'))
      .option('--all-contracts', 'keep TRC-20 Transfer logs of every contract, not only tokens of the registry')
      .option('--batch <n>', 'blocks per batch (one checkpoint each)', positiveNumber, 100)
      .option('--concurrency <n>', 'transaction-info calls in flight', positiveNumber, 8)
      .option('--node-concurrency <n>', NODE_CONCURRENCY_HELP, positiveInt)
      .option('--node-max-rate <n>', NODE_MAX_RATE_HELP, positiveNumber)
      .option('--poll <s>', 'seconds between head checks with --follow', positiveNumber, 3)
      .option('--force', 're-ingest blocks that are already ingested'),
  ).action(
    async (
      opts: CommonOptions &
        NodeOptions & {
          api?: string[];
          from?: number;
          to?: number;
          follow?: boolean;
          confirmations: number;
          datasets?: TronDatasetName[];
          allContracts?: boolean;
          batch: number;
          concurrency: number;
          poll: number;
          force?: boolean;
        },
    ) => {
      const api = opts.api ?? nodeUrlsFromEnv('CHAINQ_TRON_API');
      if (!api) throw new Error('give --api (or set CHAINQ_TRON_API): the full node HTTP API, e.g. http://fullnode:8090');
      await runIngest(opts, 'tron', 'block', {
        source: 'tron',
        api: oneOrMany(api),
        ...nodeSpec(opts),
        confirmations: opts.confirmations,
        batch: opts.batch,
        concurrency: opts.concurrency,
        poll: opts.poll,
        ...defined({ from: opts.from, to: opts.to, follow: opts.follow, datasets: opts.datasets, allContracts: opts.allContracts, force: opts.force }),
        ...httpSpec(opts),
      });
    },
  );
}

function registerBtc(ingest: Command): void {
  withCommon(
    ingest
      .command('btc')
      .description('Bitcoin transfers from bitcoind JSON-RPC (getblock verbosity 3; Bitcoin Core 23 or later)')
      .option('--rpc <url>', `http://user:pass@host:8332 (or set CHAINQ_BTC_RPC, to keep the password out of shell history); ${NODES_HELP}`, nodeUrls)
      .option('--from <block>', 'first block (default: after the last ingested one)', nonNegativeInt)
      .option('--to <block>', 'last block (default: the head less --confirmations)', nonNegativeInt)
      .option('--follow', 'after the range, keep ingesting new blocks as they are confirmed')
      .option('--confirmations <n>', 'blocks behind the head treated as final', nonNegativeInt, 6)
      .option('--batch <n>', 'blocks per batch (one checkpoint each)', positiveNumber, 10)
      .option('--concurrency <n>', 'getblock calls in flight', positiveNumber, 4)
      .option('--node-concurrency <n>', NODE_CONCURRENCY_HELP, positiveInt)
      .option('--node-max-rate <n>', NODE_MAX_RATE_HELP, positiveNumber)
      .option('--poll <s>', 'seconds between head checks with --follow', positiveNumber, 30)
      .option('--force', 're-ingest blocks that are already ingested'),
  ).action(
    async (
      opts: CommonOptions & NodeOptions & { rpc?: string[]; from?: number; to?: number; follow?: boolean; confirmations: number; batch: number; concurrency: number; poll: number; force?: boolean },
    ) => {
      const rpc = opts.rpc ?? nodeUrlsFromEnv('CHAINQ_BTC_RPC');
      if (!rpc) throw new Error('give --rpc (or set CHAINQ_BTC_RPC): http://user:pass@host:8332');
      await runIngest(opts, 'btc', 'block', {
        source: 'btc',
        rpc: oneOrMany(rpc),
        ...nodeSpec(opts),
        confirmations: opts.confirmations,
        batch: opts.batch,
        concurrency: opts.concurrency,
        poll: opts.poll,
        ...defined({ from: opts.from, to: opts.to, follow: opts.follow, force: opts.force }),
        ...httpSpec(opts),
      });
    },
  );
}
