/**
 * The ingestion jobs a server runs on its own store: those the CLI sends over
 * the operator channel, and those a `--config` file declares, which are
 * supervised (a failure is retried with backoff, never taking the API down).
 * Every job stops at a batch boundary when asked: committed work is kept.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Store } from '../store/types.ts';
import { backoffDelay } from '../utils/backoff.ts';
import { sleep } from '../utils/sleep.ts';
import { jobLabel, type JobSpec } from './jobSpec.ts';
import type { JobMessage, JobObserver, JobResult } from './runJob.ts';
import { ConflictError } from '../errors/chainqError.ts';

export type JobState = 'running' | 'retrying' | 'done' | 'failed' | 'stopped';

export interface JobStatus {
  readonly id: string;
  readonly name: string | null;
  readonly label: string;
  readonly source: JobSpec['source'];
  readonly supervised: boolean;
  readonly state: JobState;
  readonly attempts: number;
  readonly startedAt: string;
  readonly endedAt: string | null;
  readonly lastError: { readonly message: string; readonly at: string } | null;
  readonly nextRetryAt: string | null;
}

export interface JobManagerOptions {
  readonly store: Store;
  readonly dataDir: string | null;
  readonly logger?: Logger;
  readonly observe?: JobObserver & { state?(job: JobStatus): void; failed?(job: JobStatus): void };
  /** Backoff of supervised retries: first delay and ceiling, in ms. */
  readonly retryBaseMs?: number;
  readonly retryMaxMs?: number;
}

export interface Job {
  readonly id: string;
  status(): JobStatus;
  /** Receives every message from now on; returns the unsubscribe. */
  subscribe(listener: (m: JobMessage) => void): () => void;
  /** Asks the job to stop at the next batch boundary; resolves once it has. */
  stop(): Promise<void>;
  /** Settles when the job has ended (done, failed or stopped). */
  readonly ended: Promise<void>;
}

export interface JobManager {
  start(spec: JobSpec, opts?: { name?: string; supervised?: boolean }): Job;
  get(id: string): Job | undefined;
  list(): JobStatus[];
  /** Stops every job at a batch boundary (shutdown). */
  stopAll(): Promise<void>;
}

export class JobConflictError extends ConflictError {}

const iso = (ms: number) => new Date(ms).toISOString();

export function createJobManager(opts: JobManagerOptions): JobManager {
  const jobs = new Map<string, Job>();
  const live = new Map<string, Job>();
  const baseMs = opts.retryBaseMs ?? 1_000;
  const maxMs = opts.retryMaxMs ?? 300_000;

  function start(spec: JobSpec, o: { name?: string; supervised?: boolean } = {}): Job {
    const label = jobLabel(spec);
    // Two jobs writing the same scope would redo each other's batches; one at a time.
    const clash = [...live.values()].find((j) => j.status().label.replace(' (follow)', '') === label.replace(' (follow)', ''));
    if (clash) throw new JobConflictError(`a job ingesting ${label.replace(' (follow)', '')} is already running (id ${clash.id}); stop it first (chainq jobs stop ${clash.id})`);
    const id = randomUUID().slice(0, 8);
    const supervised = o.supervised ?? false;
    const controller = new AbortController();
    const listeners = new Set<(m: JobMessage) => void>();
    const startedAt = Date.now();
    let state: JobState = 'running';
    let attempts = 0;
    let endedAt: number | null = null;
    let lastError: JobStatus['lastError'] = null;
    let nextRetryAt: number | null = null;
    const log = opts.logger?.child({ job: id, name: o.name ?? null, ingest: label });

    const status = (): JobStatus => ({
      id,
      name: o.name ?? null,
      label,
      source: spec.source,
      supervised,
      state,
      attempts,
      startedAt: iso(startedAt),
      endedAt: endedAt === null ? null : iso(endedAt),
      lastError,
      nextRetryAt: nextRetryAt === null ? null : iso(nextRetryAt),
    });
    const emit = (m: JobMessage) => {
      for (const l of listeners) l(m);
    };
    const setState = (s: JobState) => {
      state = s;
      opts.observe?.state?.(status());
    };
    const ended = (async () => {
      for (;;) {
        attempts++;
        try {
          log?.info({ event: 'job_start', attempt: attempts }, 'ingestion job started');
          // Loaded with the first job: a server that runs none never holds ingestion's code.
          const { runJob } = await import('./runJob.ts');
          const result: JobResult = await runJob({ store: opts.store, dataDir: opts.dataDir, signal: controller.signal, emit, ...(opts.observe ? { observe: opts.observe } : {}) }, spec);
          const interrupted = controller.signal.aborted;
          emit({ type: 'done', result, interrupted });
          log?.info({ event: 'job_end', interrupted }, interrupted ? 'ingestion job stopped' : 'ingestion job done');
          setState(interrupted ? 'stopped' : 'done');
          return;
        } catch (e) {
          const message = e instanceof Error ? e.message : String(e);
          if (controller.signal.aborted) {
            emit({ type: 'failed', message, interrupted: true });
            setState('stopped');
            return;
          }
          lastError = { message, at: iso(Date.now()) };
          log?.warn({ event: 'job_error', attempt: attempts, err: message }, 'ingestion job failed');
          opts.observe?.failed?.(status());
          if (!supervised) {
            emit({ type: 'failed', message });
            setState('failed');
            return;
          }
          const delay = backoffDelay({ baseMs, maxMs }, attempts);
          nextRetryAt = Date.now() + delay;
          setState('retrying');
          emit({ type: 'progress', call: 'note', message: `failed (${message}); retrying in ${Math.round(delay / 1000)} s` });
          await sleep(delay, controller.signal);
          nextRetryAt = null;
          if (controller.signal.aborted) {
            setState('stopped');
            return;
          }
          setState('running');
        }
      }
    })().finally(() => {
      endedAt = Date.now();
      live.delete(id);
      listeners.clear();
    });

    const job: Job = {
      id,
      status,
      subscribe(listener) {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
      async stop() {
        controller.abort(new Error('stopped by the operator'));
        await ended;
      },
      ended,
    };
    jobs.set(id, job);
    live.set(id, job);
    opts.observe?.state?.(status());
    // Ended jobs stay listed for a while (status shows how they ended); keep the last 100.
    if (jobs.size > 100)
      for (const [k, j] of jobs)
        if (!live.has(k)) {
          jobs.delete(k);
          if (jobs.size <= 100) break;
          void j;
        }
    return job;
  }

  return {
    start,
    get: (id) => jobs.get(id),
    list: () => [...jobs.values()].map((j) => j.status()),
    async stopAll() {
      await Promise.all([...live.values()].map((j) => j.stop()));
    },
  };
}
