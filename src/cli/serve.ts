import os from 'node:os';
import path from 'node:path';
import type { Command } from 'commander';
import { createLogger } from '../internal/logger.ts';
import { createKey, listKeys } from '../metering/keys.ts';
import { createMeter } from '../metering/meter.ts';
import { loadDemo, type OperatorContext } from '../operator/actions.ts';
import { loadServeConfig } from '../operator/config.ts';
import { createJobManager, type JobManagerOptions } from '../operator/jobManager.ts';
import type { Metrics } from '../internal/metrics.ts';
import { createApp, DEFAULT_EXPORT_TTL_SECONDS } from '../server/createApp.ts';
import { startOperatorChannel } from '../server/operatorChannel.ts';
import type { Store } from '../store/types.ts';
import { defaultLaneLimits } from '../store/exportLanes.ts';
import { isEmptyStore } from '../store/coverage.ts';
import type { MetricsListener } from '../server/metricsListener.ts';
import { registerMetricsRoute } from '../server/plugins/metrics.ts';
import { exportOptions, linkOptions } from './linkOptions.ts';
import { DEFAULT_MEMORY_LIMIT, engineSize, memoryBudget, memoryLimitOption, parseMemorySize } from './memoryLimit.ts';
import { addOperateOptions, serveMetrics, serveShutdown, startOperatorMetrics, type OperateFlags } from './operateOptions.ts';
import { backendOf, plansOf, PLANS_HELP, REDIS_HELP } from './metering.ts';
import { DATA_HELP, DEFAULT_DATA_DIR, STORE_HELP, openStore, storeTargetOf, nonNegativeNumber, port, positiveInteger, positiveNumber } from './options.ts';
import { messageOf } from '../utils/errorText.ts';

interface ServeOptions extends OperateFlags {
  data: string;
  port: number;
  host: string;
  logLevel: string;
  memoryLimit: number;
  threads?: number;
  lanes: boolean;
  heavyExports?: number;
  stalledReader: number;
  streamHeartbeat: number;
  demo: boolean;
  linkTtl?: number;
  publicUrl?: string;
  exportJobs: number;
  exportTtl: number;
  exportDir?: string;
  exportYield?: boolean;
  plans?: string;
  redis?: string;
  redisPrefix?: string;
  config?: string;
}

/** A store that has never held data nor keys is new: it gets the demo and a first key. */
async function isNewStore(store: Store): Promise<boolean> {
  return isEmptyStore(store);
}

/** A new store gets the demo (unless --no-demo) and a first key, shown once. */
async function welcomeNewStore(store: Store, demo: boolean): Promise<void> {
  if (demo) {
    process.stdout.write('new store: loading the demo dataset (synthetic data)…\n');
    await loadDemo(store);
  }
  const { key } = await createKey(store, { plan: 'free', name: 'first key' });
  process.stdout.write(`first API key (plan free), shown once:\n${key}\n`);
}

/** What the ingestion jobs report to /metrics: rows per batch and dataset, the head and the lag behind it, states and failures. */
function jobObserver(metrics: Metrics): NonNullable<JobManagerOptions['observe']> {
  const heads = new Map<string, number>();
  const jobName = (j: { name: string | null; label: string }) => j.name ?? j.label;
  return {
    batch(b) {
      metrics.ingest.batch(b);
      const head = heads.get(b.network);
      if (head !== undefined) metrics.ingest.head({ network: b.network, head: Math.max(head, b.newest), newest: b.newest });
    },
    head(h) {
      heads.set(h.network, h.head);
      if (h.newest !== null) metrics.ingest.head({ network: h.network, head: h.head, newest: h.newest });
    },
    verified(report) {
      for (const d of report.datasets) metrics.verify.dataset({ network: report.network, dataset: d.dataset, result: d.mismatches ? 'mismatch' : 'ok', mismatches: d.mismatches });
    },
    state: (j) => metrics.jobs.state(jobName(j), j.state),
    failed: (j) => metrics.jobs.failed(jobName(j)),
  };
}

/** Opens the store, starts the API, the operator channel and the configured jobs, and serves until a signal stops it. */
async function serve(opts: ServeOptions): Promise<void> {
  const logger = createLogger(opts.logLevel);
  // Checked before anything starts: a bad config file is an error naming the field, not a half-started server.
  const config = opts.config ? loadServeConfig(path.resolve(opts.config)) : { jobs: [] };
  const plans = plansOf(opts);
  // DuckDB allows one read-write process per file. With Redis holding the
  // counters, the store is only read, so several servers can share it.
  // ClickHouse takes writers from any number of servers.
  const threads = opts.threads ?? Math.max(2, os.availableParallelism());
  const exportLanes = { light: defaultLaneLimits(threads).light, heavy: opts.lanes ? (opts.heavyExports ?? defaultLaneLimits(threads).heavy) : null };
  const budget = memoryBudget(opts.memoryLimit, exportLanes.light + (exportLanes.heavy ?? 0));
  logger.info({ memoryLimit: opts.memoryLimit, engineMemoryLimit: budget.engineBytes, streamBuffer: budget.streamBufferBytes }, 'memory budget');
  const store = await openStore({
    ...opts,
    threads,
    exportLanes,
    memoryLimit: engineSize(budget.engineBytes),
    streamBufferBytes: budget.streamBufferBytes,
    readOnly: Boolean(opts.redis) && storeTargetOf(opts).engine === 'duckdb',
  });
  if (!opts.redis && (await isNewStore(store))) await welcomeNewStore(store, opts.demo);
  for (const k of await listKeys(store)) {
    if (!k.revokedAt && !plans.has(k.plan)) logger.warn({ key: k.prefix, plan: k.plan }, 'key has a plan that is not configured; its requests will fail until the plan is added or the key moved');
  }
  const meter = createMeter({ backend: await backendOf(opts, store), plans });
  const metrics = serveMetrics();
  const exports = exportOptions(opts);
  const app = await createApp({
    store,
    logger,
    meter,
    links: linkOptions(opts),
    exports,
    metrics,
    metricsRoute: opts.metricsOnApi,
    stalledReaderMs: opts.stalledReader * 1000,
    streams: { heartbeatMs: opts.streamHeartbeat * 1000 },
  });
  const dataDir = path.resolve(opts.data);
  const jobs = createJobManager({ store, dataDir, logger, observe: jobObserver(metrics) });
  const reloadPlans = () => {
    const next = plansOf(opts);
    meter.setPlans(next);
    logger.info({ plans: [...next.keys()] }, 'plans reloaded');
    return next;
  };
  const operator: OperatorContext = { store, plans: () => meter.plans, reloadPlans, meterBackend: async () => meter.backend };
  const channel = await startOperatorChannel({ dataDir, actions: operator, jobs, logger, extend: (a) => registerMetricsRoute(a, metrics) });
  if (!channel)
    logger.warn({ dataDir }, 'another chainq server answers operator commands for this data directory; this one runs without an operator channel (give each server its own --data to reach it)');

  let metricsListener: MetricsListener | null = null;
  // SIGTERM/SIGINT: refuse new connections, let responses in flight finish
  // within --grace-period while jobs stop at a batch boundary, then close.
  serveShutdown(opts, {
    app,
    logger,
    onBeforeClose: () => jobs.stopAll(),
    close: async () => {
      await channel?.close();
      await metricsListener?.close();
      await meter.close();
      await store.close();
    },
  });
  process.on('SIGHUP', () => {
    try {
      reloadPlans();
    } catch (e) {
      logger.error({ err: messageOf(e) }, 'plans reload failed; the plans in force are unchanged');
    }
  });
  const address = await app.listen({ port: opts.port, host: opts.host });
  metricsListener = await startOperatorMetrics(opts, metrics, logger);
  const url = new URL(address);
  logger.info({ metering: meter.backend.kind, plans: [...plans.keys()], operator: channel?.socket ?? null }, 'metering ready');
  for (const j of config.jobs) jobs.start(j.spec, { name: j.name, supervised: true });
  process.stdout.write(`listening on http://${opts.host}:${url.port}\n`);
}

export function registerServe(program: Command): void {
  addOperateOptions(program.command('serve'))
    .description('serve the HTTP API; ingestion jobs and operator commands run inside it while it serves')
    .option('--data <dir>', DATA_HELP, DEFAULT_DATA_DIR)
    .option('--store <target>', STORE_HELP)
    .option('--port <n>', 'port', port, 8080)
    .option('--host <host>', 'interface to listen on; 127.0.0.1 unless you mean to expose it', '127.0.0.1')
    .option('--log-level <level>', 'pino log level', process.env.CHAINQ_LOG_LEVEL ?? 'info')
    .option(
      '--memory-limit <size>',
      "bound on the server's memory (engine, stream buffers, Node), e.g. 1GiB; the engine's own limit and the buffers are derived from it, and large sorts spill to disk",
      memoryLimitOption,
      parseMemorySize(DEFAULT_MEMORY_LIMIT),
    )
    .option('--threads <n>', 'DuckDB worker threads (default: the number of cores)', positiveInteger)
    .option('--heavy-exports <n>', 'heavy queries (planned cost of 1,000 blocks or more) exported at once (default: engine threads - 1, at least 2)', positiveInteger)
    .option('--no-lanes', 'one queue for every export, small or heavy (fair scheduling off)')
    .option(
      '--stalled-reader <seconds>',
      'give up a streamed answer whose client has not read for this long: its export stops and frees its slot, nothing is charged (0: never)',
      nonNegativeNumber,
      60,
    )
    .option('--stream-heartbeat <seconds>', 'longest a quiet live stream goes without a progress event', positiveNumber, 15)
    .option('--no-demo', 'do not load the demo dataset into a new store')
    .option('--link-ttl <seconds>', 'lifetime of link=true download URLs (default 3600, or CHAINQ_LINK_TTL)', positiveNumber)
    .option('--export-jobs <n>', 'export jobs (POST /v1/exports) running at once; the others wait their turn', positiveInteger, 1)
    .option('--export-ttl <seconds>', 'how long the files of a finished export are kept before they are removed (default 7 days)', positiveNumber, DEFAULT_EXPORT_TTL_SECONDS)
    .option('--export-dir <dir>', 'folder of export files (default <data>/exports); also where a ClickHouse server writes them')
    .option('--no-export-yield', 'export jobs write at full speed while API requests are answered (by default they give way to them)')
    .option('--public-url <url>', 'base of link download URLs, e.g. https://data.example.com (or CHAINQ_PUBLIC_URL)')
    .option('--plans <file>', `${PLANS_HELP}; reread on SIGHUP or \`chainq plans reload\``)
    .option('--redis <url>', REDIS_HELP)
    .option('--redis-prefix <prefix>', 'prefix of every Redis key, to share one Redis between deployments', 'chainq')
    .option('--config <file>', 'ingestion jobs to start and supervise (JSON; see the README)')
    .action(serve);
}
