/**
 * `chainq serve`'s metrics and shutdown flags (README "Operating"), and what
 * they start: the metrics registry, its own listener, the signal handlers.
 */
import type { Command } from 'commander';
import type { Logger } from 'pino';
import { createMetrics, type Metrics } from '../internal/metrics.ts';
import { startMetricsListener, type MetricsListener } from '../server/metricsListener.ts';
import { installShutdown, type Shutdown, type ShutdownOptions } from '../server/shutdown.ts';
import { port } from './options.ts';

export interface OperateFlags {
  readonly metricsPort?: number;
  readonly metricsHost: string;
  readonly metricsOnApi: boolean;
  readonly gracePeriod: number;
}

export const DEFAULT_GRACE_SECONDS = 30;

function seconds(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new Error(`expected a number of seconds, got '${value}'`);
  return n;
}

export function addOperateOptions(command: Command): Command {
  return command
    .option('--metrics-port <n>', 'serve GET /metrics (Prometheus) on this port, apart from the API (0: any free port)', port)
    .option('--metrics-host <host>', 'interface of the metrics listener', '127.0.0.1')
    .option('--metrics-on-api', 'also serve GET /metrics on the API listener (anyone who reaches the API can read it)', false)
    .option('--grace-period <seconds>', 'on SIGTERM/SIGINT, how long in-flight responses may take to finish before their connections are closed', seconds, DEFAULT_GRACE_SECONDS);
}

/** The registry of a serving process: with the process series (memory, CPU, event-loop lag). */
export function serveMetrics(): Metrics {
  return createMetrics({ processMetrics: true });
}

/** Starts the metrics listener when `--metrics-port` was given, and says where it is. */
export async function startOperatorMetrics(flags: OperateFlags, metrics: Metrics, logger: Logger): Promise<MetricsListener | null> {
  if (flags.metricsPort === undefined) return null;
  const listener = await startMetricsListener({ metrics, port: flags.metricsPort, host: flags.metricsHost, logger });
  process.stdout.write(`metrics on ${listener.url}/metrics\n`);
  return listener;
}

/** SIGTERM/SIGINT handling with the `--grace-period` of `flags`. */
export function serveShutdown(flags: OperateFlags, opts: Omit<ShutdownOptions, 'graceMs'>): Shutdown {
  return installShutdown({ ...opts, graceMs: flags.gracePeriod * 1000 });
}
