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

/** One job while it lives: what it runs, and the state its status reports. */
interface JobRun {
  readonly id: string;
  readonly name: string | null;
  readonly label: string;
  readonly spec: JobSpec;
  readonly supervised: boolean;
  readonly controller: AbortController;
  readonly listeners: Set<(m: JobMessage) => void>;
  readonly startedAt: number;
  readonly log: Logger | undefined;
  state: JobState;
  attempts: number;
  endedAt: number | null;
  lastError: JobStatus['lastError'];
  nextRetryAt: number | null;
}

/** Backoff of supervised retries: first delay and ceiling, in ms. */
interface RetryTiming {
  readonly baseMs: number;
  readonly maxMs: number;
}

export function createJobManager(opts: JobManagerOptions): JobManager {
  const jobs = new Map<string, Job>();
  const live = new Map<string, Job>();
  const timing: RetryTiming = { baseMs: opts.retryBaseMs ?? 1_000, maxMs: opts.retryMaxMs ?? 300_000 };

  function start(spec: JobSpec, o: { name?: string; supervised?: boolean } = {}): Job {
    const label = jobLabel(spec);
    // Two jobs writing the same scope would redo each other's batches; one at a time.
    const clash = [...live.values()].find((j) => j.status().label.replace(' (follow)', '') === label.replace(' (follow)', ''));
    if (clash) throw new JobConflictError(`a job ingesting ${label.replace(' (follow)', '')} is already running (id ${clash.id}); stop it first (chainq jobs stop ${clash.id})`);
    const id = randomUUID().slice(0, 8);
    const run: JobRun = {
      id,
      name: o.name ?? null,
      label,
      spec,
      supervised: o.supervised ?? false,
      controller: new AbortController(),
      listeners: new Set(),
      startedAt: Date.now(),
      log: opts.logger?.child({ job: id, name: o.name ?? null, ingest: label }),
      state: 'running',
      attempts: 0,
      endedAt: null,
      lastError: null,
      nextRetryAt: null,
    };
    const ended = runAttempts(run, opts, timing).finally(() => {
      run.endedAt = Date.now();
      live.delete(id);
      run.listeners.clear();
    });

    const job: Job = {
      id,
      status: () => runStatus(run),
      subscribe(listener) {
        run.listeners.add(listener);
        return () => run.listeners.delete(listener);
      },
      async stop() {
        run.controller.abort(new Error('stopped by the operator'));
        await ended;
      },
      ended,
    };
    jobs.set(id, job);
    live.set(id, job);
    opts.observe?.state?.(runStatus(run));
    forgetOldest(jobs, live);
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

function runStatus(run: JobRun): JobStatus {
  return {
    id: run.id,
    name: run.name,
    label: run.label,
    source: run.spec.source,
    supervised: run.supervised,
    state: run.state,
    attempts: run.attempts,
    startedAt: iso(run.startedAt),
    endedAt: run.endedAt === null ? null : iso(run.endedAt),
    lastError: run.lastError,
    nextRetryAt: run.nextRetryAt === null ? null : iso(run.nextRetryAt),
  };
}

function emit(run: JobRun, m: JobMessage): void {
  for (const l of run.listeners) l(m);
}

function setState(run: JobRun, opts: JobManagerOptions, s: JobState): void {
  run.state = s;
  opts.observe?.state?.(runStatus(run));
}

/** Runs the job until it is done, stopped, or (unsupervised) failed; a supervised job retries with backoff. */
async function runAttempts(run: JobRun, opts: JobManagerOptions, timing: RetryTiming): Promise<void> {
  const { controller, log } = run;
  for (;;) {
    run.attempts++;
    try {
      log?.info({ event: 'job_start', attempt: run.attempts }, 'ingestion job started');
      const ctx = { store: opts.store, dataDir: opts.dataDir, signal: controller.signal, emit: (m: JobMessage) => emit(run, m), ...(opts.observe ? { observe: opts.observe } : {}) };
      // Loaded with the first job: a server that runs none never holds ingestion's code.
      const { runJob } = await import('./runJob.ts');
      const result: JobResult = await runJob(ctx, run.spec);
      const interrupted = controller.signal.aborted;
      emit(run, { type: 'done', result, interrupted });
      log?.info({ event: 'job_end', interrupted }, interrupted ? 'ingestion job stopped' : 'ingestion job done');
      setState(run, opts, interrupted ? 'stopped' : 'done');
      return;
    } catch (e) {
      if (!(await retryAfterFailure(run, opts, timing, e))) return;
    }
  }
}

/** After a failed attempt: whether to try again (a supervised job, not stopped meanwhile), having waited the backoff. */
async function retryAfterFailure(run: JobRun, opts: JobManagerOptions, timing: RetryTiming, e: unknown): Promise<boolean> {
  const { controller, log } = run;
  const message = e instanceof Error ? e.message : String(e);
  if (controller.signal.aborted) {
    emit(run, { type: 'failed', message, interrupted: true });
    setState(run, opts, 'stopped');
    return false;
  }
  run.lastError = { message, at: iso(Date.now()) };
  log?.warn({ event: 'job_error', attempt: run.attempts, err: message }, 'ingestion job failed');
  opts.observe?.failed?.(runStatus(run));
  if (!run.supervised) {
    emit(run, { type: 'failed', message });
    setState(run, opts, 'failed');
    return false;
  }
  const delay = backoffDelay(timing, run.attempts);
  run.nextRetryAt = Date.now() + delay;
  setState(run, opts, 'retrying');
  emit(run, { type: 'progress', call: 'note', message: `failed (${message}); retrying in ${Math.round(delay / 1000)} s` });
  await sleep(delay, controller.signal);
  run.nextRetryAt = null;
  if (controller.signal.aborted) {
    setState(run, opts, 'stopped');
    return false;
  }
  setState(run, opts, 'running');
  return true;
}

/** Ended jobs stay listed for a while (status shows how they ended); keep the last 100. */
function forgetOldest(jobs: Map<string, Job>, live: ReadonlyMap<string, Job>): void {
  if (jobs.size <= 100) return;
  for (const k of jobs.keys()) {
    if (live.has(k)) continue;
    jobs.delete(k);
    if (jobs.size <= 100) break;
  }
}
