/**
 * The service's Prometheus metrics (README "Operating": Metrics).
 *
 * Each `createMetrics()` owns its own registry rather than prom-client's
 * global one, so that several apps in one process (the tests, a server with
 * an operator app beside it) never share or clash over series. Callers use
 * the typed helpers below; the series names are part of the operator's
 * interface and documented in the README.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Latency buckets in seconds, from a cached discovery answer to a long download. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

export interface HttpObservation {
  readonly method: string;
  /** The route pattern (`/v1/links/:id`), never the raw URL. */
  readonly route: string;
  readonly status: number;
  readonly seconds: number;
  /** Body bytes handed to the connection. */
  readonly bytes: number;
  /** The client closed the connection before the response ended. */
  readonly aborted: boolean;
}

export interface IngestBatch {
  readonly network: string;
  readonly dataset: string;
  /** Rows the batch committed. */
  readonly rows: number;
  /** Wall time of the batch, fetch to commit. */
  readonly seconds: number;
}

export interface IngestHead {
  readonly network: string;
  /** The chain's head as the source reports it. */
  readonly head: number | bigint;
  /** The newest block committed to the store for this network. */
  readonly newest: number | bigint;
}

export interface Metrics {
  readonly registry: Registry;
  /** The Content-Type of `render()`'s text. */
  readonly contentType: string;
  /** The Prometheus text exposition of every series. */
  render(): Promise<string>;
  readonly http: {
    observe(o: HttpObservation): void;
  };
  readonly engine: {
    /** A data query ran from its start until the engine finished producing its result. */
    query(o: { route: string; format: string; seconds: number }): void;
  };
  readonly metering: {
    /** Blocks charged to a key for one delivered response. */
    charged(o: { route: string; plan: string; blocks: number }): void;
  };
  readonly ingest: {
    /** One batch committed. */
    batch(b: IngestBatch): void;
    /** The latest head seen and the newest committed block of a network. */
    head(h: IngestHead): void;
  };
  readonly verify: {
    /** One dataset of one `chainq verify` run compared: its result and how many blocks differed. */
    dataset(v: { network: string; dataset: string; result: 'ok' | 'mismatch'; mismatches: number }): void;
  };
  readonly exports: {
    /** One partition of an export job was written, charged and recorded. */
    partition(o: { rows: number; bytes: number }): void;
    /** An export job failed. */
    failed(): void;
  };
  readonly jobs: {
    /** A job run ended with an error (it may be retried). */
    failed(job: string): void;
    /** The job's current state; the other states it has been in read 0. */
    state(job: string, state: string): void;
  };
}

export interface MetricsOptions {
  /** Also export prom-client's process and Node.js series (memory, CPU, event-loop lag). Off by default: each call starts an event-loop monitor that lives as long as the process. */
  readonly processMetrics?: boolean;
}

/** The HTTP series: requests, latency, client aborts and bytes by route pattern. */
function httpMetrics(registers: Registry[]): Metrics['http'] {
  const httpRequests = new Counter({
    name: 'chainq_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status code',
    labelNames: ['method', 'route', 'status'] as const,
    registers,
  });
  const httpDuration = new Histogram({
    name: 'chainq_http_request_duration_seconds',
    help: "Time from a request's arrival until its response ended or the client left",
    labelNames: ['method', 'route', 'status'] as const,
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const httpAborts = new Counter({
    name: 'chainq_http_client_aborts_total',
    help: 'Responses the client left before their end, by route pattern',
    labelNames: ['route'] as const,
    registers,
  });
  const httpBytes = new Counter({
    name: 'chainq_http_response_bytes_total',
    help: 'Response body bytes handed to clients, by route pattern (streamed data, link downloads, JSON)',
    labelNames: ['route'] as const,
    registers,
  });
  return {
    observe(o) {
      const labels = { method: o.method, route: o.route, status: String(o.status) };
      httpRequests.inc(labels);
      httpDuration.observe(labels, o.seconds);
      if (o.bytes > 0) httpBytes.inc({ route: o.route }, o.bytes);
      if (o.aborted) httpAborts.inc({ route: o.route });
    },
  };
}

/** How long the engine took over each data query. */
function engineMetrics(registers: Registry[]): Metrics['engine'] {
  const engineSeconds = new Histogram({
    name: 'chainq_engine_query_seconds',
    help: "Time from a data query's start until the engine finished its result (includes waiting on a slow client)",
    labelNames: ['route', 'format'] as const,
    buckets: LATENCY_BUCKETS,
    registers,
  });
  return {
    query(o) {
      engineSeconds.observe({ route: o.route, format: o.format }, o.seconds);
    },
  };
}

/** Blocks charged, by route and plan. */
function meteringMetrics(registers: Registry[]): Metrics['metering'] {
  const blocksCharged = new Counter({
    name: 'chainq_blocks_charged_total',
    help: 'Blocks charged to API keys for delivered responses, by route pattern and plan',
    labelNames: ['route', 'plan'] as const,
    registers,
  });
  return {
    charged(o) {
      if (o.blocks > 0) blocksCharged.inc({ route: o.route, plan: o.plan }, o.blocks);
    },
  };
}

/** Rows, rate, head, newest block and lag of ingestion. */
function ingestMetrics(registers: Registry[]): Metrics['ingest'] {
  const ingestRows = new Counter({
    name: 'chainq_ingest_rows_total',
    help: 'Rows committed by ingestion, by network and dataset',
    labelNames: ['network', 'dataset'] as const,
    registers,
  });
  const ingestRate = new Gauge({
    name: 'chainq_ingest_rows_per_second',
    help: 'Rows per second of the last committed batch, by network and dataset',
    labelNames: ['network', 'dataset'] as const,
    registers,
  });
  const ingestHead = new Gauge({
    name: 'chainq_ingest_head_block',
    help: 'The chain head last seen by ingestion, by network',
    labelNames: ['network'] as const,
    registers,
  });
  const ingestNewest = new Gauge({
    name: 'chainq_ingest_newest_block',
    help: 'The newest block committed to the store, by network',
    labelNames: ['network'] as const,
    registers,
  });
  const ingestLag = new Gauge({
    name: 'chainq_ingest_lag_blocks',
    help: 'Blocks between the chain head and the newest committed block, by network',
    labelNames: ['network'] as const,
    registers,
  });
  return {
    batch(b) {
      const labels = { network: b.network, dataset: b.dataset };
      ingestRows.inc(labels, b.rows);
      if (b.seconds > 0) ingestRate.set(labels, b.rows / b.seconds);
    },
    head(h) {
      const head = Number(h.head);
      const newest = Number(h.newest);
      ingestHead.set({ network: h.network }, head);
      ingestNewest.set({ network: h.network }, newest);
      ingestLag.set({ network: h.network }, Math.max(0, head - newest));
    },
  };
}

/** The results of chainq verify. */
function verifyMetrics(registers: Registry[]): Metrics['verify'] {
  const verifications = new Counter({
    name: 'chainq_verifications_total',
    help: 'Datasets compared with a node by chainq verify, by network, dataset and result (ok or mismatch)',
    labelNames: ['network', 'dataset', 'result'] as const,
    registers,
  });
  const verifyMismatches = new Counter({
    name: 'chainq_verify_mismatched_blocks_total',
    help: "Blocks whose stored rows differed from the node's in chainq verify, by network and dataset",
    labelNames: ['network', 'dataset'] as const,
    registers,
  });
  return {
    dataset(v) {
      verifications.inc({ network: v.network, dataset: v.dataset, result: v.result });
      // Present from the first verification, so that an alert on increase() sees a 0 rather than no data.
      verifyMismatches.inc({ network: v.network, dataset: v.dataset }, v.mismatches);
    },
  };
}

/** Export partitions, rows, bytes and failures. */
function exportsMetrics(registers: Registry[]): Metrics['exports'] {
  const exportPartitions = new Counter({ name: 'chainq_export_partitions_total', help: 'Export partitions written, charged and recorded', registers });
  const exportRows = new Counter({ name: 'chainq_export_rows_total', help: 'Rows written to export files', registers });
  const exportBytes = new Counter({ name: 'chainq_export_bytes_total', help: 'Bytes of export files written', registers });
  const exportFailures = new Counter({ name: 'chainq_export_failures_total', help: 'Export jobs that failed', registers });
  return {
    partition(o) {
      exportPartitions.inc();
      exportRows.inc(o.rows);
      exportBytes.inc(o.bytes);
    },
    failed() {
      exportFailures.inc();
    },
  };
}

/** The ingestion jobs: errors and the state each is in. */
function jobsMetrics(registers: Registry[]): Metrics['jobs'] {
  const jobErrors = new Counter({
    name: 'chainq_job_errors_total',
    help: 'Ingestion job runs that ended with an error, by job',
    labelNames: ['job'] as const,
    registers,
  });
  const jobState = new Gauge({
    name: 'chainq_job_state',
    help: "Ingestion job state: 1 for the job's current state, 0 for the others it has been in",
    labelNames: ['job', 'state'] as const,
    registers,
  });
  /** Every state each job has been in, so that leaving one sets it to 0 rather than leaving a stale 1. */
  const jobStates = new Map<string, Set<string>>();
  return {
    failed(job) {
      jobErrors.inc({ job });
    },
    state(job, state) {
      let seen = jobStates.get(job);
      if (!seen) {
        seen = new Set();
        jobStates.set(job, seen);
        // The error series exists from the job's start, so that rate() and alerts see a 0 rather than no data.
        jobErrors.inc({ job }, 0);
      }
      seen.add(state);
      for (const s of seen) jobState.set({ job, state: s }, s === state ? 1 : 0);
    },
  };
}

export function createMetrics(opts: MetricsOptions = {}): Metrics {
  const registry = new Registry();
  if (opts.processMetrics) collectDefaultMetrics({ register: registry });
  const registers = [registry];

  return {
    registry,
    contentType: registry.contentType,
    render: () => registry.metrics(),
    http: httpMetrics(registers),
    engine: engineMetrics(registers),
    metering: meteringMetrics(registers),
    ingest: ingestMetrics(registers),
    verify: verifyMetrics(registers),
    exports: exportsMetrics(registers),
    jobs: jobsMetrics(registers),
  };
}
