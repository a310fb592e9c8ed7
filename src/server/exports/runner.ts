/**
 * Runs export jobs inside the server (docs/api.md, "Exports"): at most
 * `jobs` at once, each one partition after another, every partition one
 * engine export in the heavy lane, written to a temporary file and renamed
 * into place, then charged its share through the meter's durable ledger, then
 * recorded. What is recorded is never run again: after a restart (a crash
 * included) an unfinished export continues from its first unrecorded
 * partition.
 */
import type { DataRoute } from '../../catalog/derive/routes.ts';
import { isApiError } from '../../errors/apiError.ts';
import type { Metrics } from '../../internal/metrics.ts';
import type { MeterBackend, Reservation } from '../../metering/backend.ts';
import { monthPeriod } from '../../metering/period.ts';
import type { QueryPlan } from '../../query/planRaw.ts';
import { plannerFor } from '../../query/planner.ts';
import { storedBlockHashes } from '../../store/chainReads.ts';
import type { ExportThrottle } from '../../store/exportLanes.ts';
import type { Store, StoredExport, StoredExportPart } from '../../store/types.ts';
import type { ExportFiles, WrittenFile } from './exportFiles.ts';
import { partitionName, partitionsOf, shareCost, type ExportRange, type Partition } from './partitions.ts';

/** The data route an export runs and its parameters, validated as the route validates them. */
export interface ResolvedExport {
  readonly route: DataRoute;
  readonly query: Readonly<Record<string, unknown>>;
}

export interface ExportRunnerOptions {
  readonly store: Store;
  readonly backend: MeterBackend;
  readonly files: ExportFiles;
  /** Exports running at once. */
  readonly jobs: number;
  /** How long finished files are kept. */
  readonly ttlSeconds: number;
  readonly metrics: Metrics;
  /** Validates a stored export's parameters again (the server's own validator). */
  resolve(job: StoredExport): Promise<ResolvedExport>;
  /** A failure the runner cannot answer to a client: of an export, or of the expiry sweep (null). */
  readonly onError: (e: unknown, job: StoredExport | null) => void;
  /** The meter's clock: when charges are made, and so the month they count in. */
  readonly meterClock: () => number;
  /** The clock of expiry. */
  readonly now?: () => number;
  /** Partitions give way to interactive requests through it (./interactiveGate.ts). */
  readonly throttle?: ExportThrottle;
}

/** What a running export has done since this server started it: for its ETA, and its status read without the store. */
interface Live {
  cancelled: boolean;
  readonly startedAt: number;
  doneAtStart: number;
  /** Its record as the runner holds it and its finished partitions as recorded (all of them, those before this start included); null until read from the store. */
  seen: { readonly state: { job: StoredExport }; readonly parts: StoredExportPart[] } | null;
}

/** A running export's record and finished partitions, as the store holds them. */
export interface LiveExport {
  readonly job: StoredExport;
  readonly parts: readonly StoredExportPart[];
}

export interface ExportRunner {
  readonly files: ExportFiles;
  readonly ttlSeconds: number;
  /** Queues a saved export. */
  submit(job: StoredExport): void;
  /** Stops a queued or running export; its finished partitions stay. Resolves once it stopped. */
  cancel(job: StoredExport): Promise<StoredExport>;
  /**
   * A running export's record and finished partitions as last written to the store, or null when this
   * runner is not running it: a client polling its status then costs the engine nothing.
   */
  live(id: string): LiveExport | null;
  /** Seconds left for a running export, from its pace so far; null before its first partition. */
  etaSeconds(job: StoredExport, partitionsDone: number): number | null;
  /** Queues every unfinished export of the store (at start-up) and starts the expiry sweep. */
  start(sweepSeconds?: number): Promise<void>;
  /** Removes the files of exports past their expiry. */
  sweep(): Promise<number>;
  /** Exports running now. */
  running(): number;
  /** Lets running partitions finish and stops; unfinished exports resume at the next start. */
  stop(): Promise<void>;
}

export function exportRangeOf(job: StoredExport): ExportRange {
  return { kind: job.partitionBy === 'time' ? 'time' : 'blocks', start: job.rangeStart, end: job.rangeEnd };
}

/** The partition's parameters: the export's own, with the range narrowed to the partition. */
function partitionQuery(job: StoredExport, query: Readonly<Record<string, unknown>>, p: Partition): Record<string, unknown> {
  const range = job.partitionBy === 'time' ? { since: new Date(p.start).toISOString(), until: new Date(p.end).toISOString() } : { block_start: p.start, block_end: p.end };
  return { ...query, ...range, format: job.format };
}

export const extensionOf = (job: Pick<StoredExport, 'format' | 'compression'>): string => (job.compression === 'gzip' ? 'csv.gz' : job.format);

/** Records an export as ended; its files are kept for the TTL from now. */
async function finishExport(
  opts: ExportRunnerOptions,
  now: () => number,
  job: StoredExport,
  status: 'done' | 'failed' | 'cancelled',
  error: { code: string; message: string } | null,
): Promise<StoredExport> {
  const at = now();
  const ended: StoredExport = { ...job, status, finishedAt: new Date(at), expiresAt: new Date(at + opts.ttlSeconds * 1000), errorCode: error?.code ?? null, errorMessage: error?.message ?? null };
  await opts.store.exports.save(ended);
  return ended;
}

/** Charges one finished partition its share of the export's price. */
async function chargePartition(opts: ExportRunnerOptions, job: StoredExport, p: Partition, cost: number): Promise<void> {
  if (cost === 0) return;
  const at = opts.meterClock();
  // One id per partition: the ledger shows which partition each charge paid for. A crash after the charge was
  // made durable and before the partition was recorded leaves the partition to be written again after the
  // restart, and charged again: the backend keeps a replayable id and charges it once.
  const r: Reservation = { id: `${job.id}-${p.index}`, keyId: job.keyId, period: monthPeriod(at), cost, at, endpoint: job.endpoint, replayable: true };
  // The export's whole price was checked against the budget when it was accepted: a partition is charged whatever was spent since.
  await opts.backend.reserve(r, null);
  try {
    await opts.backend.commit(r);
  } catch (e) {
    await opts.backend.release(r).catch(() => undefined);
    throw e;
  }
}

/** A partition ready to be written: the snapshot it reads and its planned query. */
interface PreparedPartition {
  readonly p: Partition;
  readonly name: string;
  readonly snap: Store;
  readonly plan: QueryPlan;
}

/** Takes a snapshot and plans a partition's query; the first partition also records the export's columns. */
async function preparePartition(opts: ExportRunnerOptions, state: { job: StoredExport }, resolved: ResolvedExport, p: Partition): Promise<PreparedPartition> {
  const job = state.job;
  const name = partitionName(job.partitionBy === 'time' ? 'time' : 'blocks', p, extensionOf(job));
  const snap = await opts.store.snapshot();
  try {
    const plan = await plannerFor(resolved.route)({ store: snap, keyId: job.keyId, unlimitedRange: true }, resolved.route, partitionQuery(job, resolved.query, p));
    if (state.job.columns === '') {
      state.job = { ...state.job, columns: JSON.stringify(await snap.exports.describe(plan.sql, plan.params)) };
      await opts.store.exports.save(state.job);
    }
    return { p, name, snap, plan };
  } catch (e) {
    await snap.close();
    throw e;
  }
}

/**
 * Writes a prepared partition's file under its final name; null when the
 * export was cancelled while it ran (the file is removed, nothing is
 * charged). Its snapshot stays open for the partition's record.
 */
async function writePartition(opts: ExportRunnerOptions, cancelled: () => boolean, job: StoredExport, resolved: ResolvedExport, prep: PreparedPartition): Promise<WrittenFile | null> {
  const { snap, plan, name } = prep;
  const started = performance.now();
  const written = await opts.files.put(job.id, name, job.compression === 'gzip', (file, tap) =>
    snap.copyToFile(plan.sql, plan.params, plan.format, file, { lane: 'heavy', ...(opts.throttle ? { throttle: opts.throttle } : {}), ...(tap ? { tap } : {}) }),
  );
  opts.metrics.engine.query({ route: resolved.route.path, format: plan.format, seconds: (performance.now() - started) / 1000 });
  if (cancelled()) {
    // Cancelled while it ran: the partition is not delivered, so not charged.
    await opts.files.discard(job.id, name).catch(() => undefined);
    return null;
  }
  return written;
}

/** A written partition's record: its file, and the hashes its snapshot holds for its first and last block. Closes the snapshot. */
async function partRecord(job: StoredExport, resolved: ResolvedExport, prep: PreparedPartition, written: WrittenFile, share: number): Promise<StoredExportPart> {
  const { p, snap } = prep;
  try {
    let hashes: { first: string | null; last: string | null } = { first: null, last: null };
    if (job.partitionBy === 'blocks') {
      const e = resolved.route.endpoint;
      const network = typeof resolved.query.network === 'string' ? resolved.query.network.toUpperCase() : e.family === 'exchange' ? '' : (e.networks[0] ?? '');
      const stored = await storedBlockHashes(snap, network, [p.start, p.end]);
      hashes = { first: stored.get(p.start)?.hash ?? null, last: stored.get(p.end)?.hash ?? null };
    }
    return {
      exportId: job.id,
      index: p.index,
      name: prep.name,
      rangeStart: p.start,
      rangeEnd: p.end,
      rows: written.rows,
      bytes: written.bytes,
      sha256: written.sha256,
      firstBlockHash: hashes.first,
      lastBlockHash: hashes.last,
      charge: share,
      url: written.url,
    };
  } finally {
    await snap.close();
  }
}

/** Charges a partition whose file is complete under its final name, then records it: from then on it is never run again. */
async function recordPartition(opts: ExportRunnerOptions, job: StoredExport, p: Partition, part: StoredExportPart): Promise<void> {
  await chargePartition(opts, job, p, part.charge);
  await opts.store.exports.addPart(part);
  opts.metrics.exports.partition({ rows: part.rows, bytes: part.bytes });
}

/**
 * Writes the partitions not in `done`, in order, until `halted`. While the engine writes one partition,
 * the one before is charged and recorded and the next one is planned: their store reads and writes then
 * cost the export no time of its own. Records keep the partitions' order, and this resolves (or
 * rejects) only once the last record settled, so an export ends (done, failed, cancelled or stopped)
 * after it.
 */
async function writeInOrder(
  opts: ExportRunnerOptions,
  state: { job: StoredExport },
  resolved: ResolvedExport,
  done: ReadonlySet<number>,
  me: Live,
  halted: () => boolean,
  cancelled: () => boolean,
): Promise<void> {
  const job = state.job;
  const all = partitionsOf(exportRangeOf(job), job.partitionSize);
  const shares = shareCost(job.cost, all, exportRangeOf(job).kind);
  const todo = all.filter((p) => !done.has(p.index));
  const prepare = (p: Partition | undefined): Promise<PreparedPartition> | null => {
    if (!p) return null;
    const prepared = preparePartition(opts, state, resolved, p);
    // Awaited in turn below; until then its failure is not an unhandled one.
    prepared.catch(() => undefined);
    return prepared;
  };
  let recording: Promise<void> = Promise.resolve();
  let next = prepare(todo[0]);
  try {
    for (let i = 0; next && !halted(); i++) {
      const prep = await next;
      next = prepare(todo[i + 1]);
      const [write, record] = await Promise.allSettled([writePartition(opts, cancelled, state.job, resolved, prep), recording]);
      const written = write.status === 'fulfilled' ? write.value : null;
      if (record.status === 'rejected' || write.status === 'rejected' || !written) {
        await prep.snap.close();
        // The export fails on the partition before: this one, written meanwhile, is not delivered.
        if (written) await opts.files.discard(job.id, prep.name).catch(() => undefined);
        if (record.status === 'rejected') throw record.reason;
        if (write.status === 'rejected') throw write.reason;
        break;
      }
      recording = partRecord(state.job, resolved, prep, written, shares[prep.p.index] ?? 0).then(async (part) => {
        await recordPartition(opts, state.job, prep.p, part);
        me.seen?.parts.push(part);
      });
    }
  } catch (e) {
    // Ended only once the record in flight has settled, as on every other way out.
    await recording.catch(() => undefined);
    throw e;
  } finally {
    // A partition planned but not written (the export halted or failed): its snapshot is closed.
    void next?.then((prep) => prep.snap.close()).catch(() => undefined);
  }
  await recording;
}

/** Removes the files of exports past their expiry at `t`; answers how many. */
async function sweepExpired(store: Store, files: ExportFiles, t: number): Promise<number> {
  let removed = 0;
  for (const job of await store.exports.all()) {
    if (job.filesRemoved || !job.expiresAt || job.expiresAt.getTime() > t) continue;
    const parts = await store.exports.parts(job.id);
    await files.remove(
      job.id,
      parts.map((p) => p.name),
    );
    await store.exports.save({ ...job, filesRemoved: true });
    removed++;
  }
  return removed;
}

export function createExportRunner(opts: ExportRunnerOptions): ExportRunner {
  const { store, files } = opts;
  const now = opts.now ?? Date.now;
  const queue: StoredExport[] = [];
  const live = new Map<string, Live>();
  const runs = new Set<Promise<void>>();
  let stopping = false;
  let sweeper: NodeJS.Timeout | undefined;

  function pump(): void {
    while (!stopping && runs.size < opts.jobs && queue.length) {
      const job = queue.shift();
      if (!job) break;
      const run = runJob(job).catch((e: unknown) => opts.onError(e, job));
      runs.add(run);
      void run.finally(() => {
        runs.delete(run);
        pump();
      });
    }
  }

  const finish = (job: StoredExport, status: 'done' | 'failed' | 'cancelled', error: { code: string; message: string } | null) => finishExport(opts, now, job, status, error);

  async function runJob(queued: StoredExport): Promise<void> {
    // Known as running before the first await, so that a cancel arriving meanwhile is seen by the loop below.
    const me: Live = { cancelled: false, startedAt: now(), doneAtStart: 0, seen: null };
    live.set(queued.id, me);
    try {
      await runLive(queued, me);
    } finally {
      live.delete(queued.id);
    }
  }

  async function runLive(queued: StoredExport, me: Live): Promise<void> {
    const fresh = await store.exports.get(queued.id);
    if (!fresh || (fresh.status !== 'queued' && fresh.status !== 'running')) return;
    const parts = await store.exports.parts(fresh.id);
    const done = new Set(parts.map((p) => p.index));
    me.doneAtStart = done.size;
    const state = { job: { ...fresh, status: 'running' as const } };
    await store.exports.save(state.job);
    me.seen = { state, parts };
    try {
      const resolved = await opts.resolve(fresh);
      await writeInOrder(
        opts,
        state,
        resolved,
        done,
        me,
        () => stopping || me.cancelled,
        () => live.get(fresh.id)?.cancelled === true,
      );
      if (me.cancelled) await finish(state.job, 'cancelled', null);
      else if (!stopping) await finish(state.job, 'done', null);
    } catch (e) {
      opts.metrics.exports.failed();
      if (stopping) return;
      const error = isApiError(e)
        ? { code: e.code, message: e.message }
        : { code: 'internal_error', message: 'the export failed on the server; the partitions already written stay charged and downloadable' };
      if (!isApiError(e)) opts.onError(e, state.job);
      await finish(state.job, 'failed', error);
    }
  }

  const runner: ExportRunner = {
    files,
    ttlSeconds: opts.ttlSeconds,
    submit(job) {
      queue.push(job);
      pump();
    },
    async cancel(job) {
      const waiting = queue.findIndex((j) => j.id === job.id);
      if (waiting >= 0) queue.splice(waiting, 1);
      const running = live.get(job.id);
      if (!running) {
        const stored = await store.exports.get(job.id);
        if (!stored || (stored.status !== 'queued' && stored.status !== 'running')) return stored ?? job;
        return finish(stored, 'cancelled', null);
      }
      running.cancelled = true;
      // Resolves once its partition in progress has stopped and the export is recorded as cancelled.
      while (live.has(job.id)) await new Promise((resolve) => setTimeout(resolve, 20));
      return (await store.exports.get(job.id)) ?? job;
    },
    live(id) {
      const seen = live.get(id)?.seen;
      return seen ? { job: seen.state.job, parts: seen.parts } : null;
    },
    etaSeconds(job, partitionsDone) {
      const l = live.get(job.id);
      const done = l?.seen?.parts.length;
      if (!l || done === undefined || done === l.doneAtStart) return null;
      const perPartition = (now() - l.startedAt) / 1000 / (done - l.doneAtStart);
      return Math.round(perPartition * Math.max(0, job.partitions - partitionsDone));
    },
    async start(sweepSeconds = 60) {
      const all = await store.exports.all();
      // Oldest first, as they were accepted.
      for (const job of all.reverse()) if (job.status === 'queued' || job.status === 'running') runner.submit(job);
      await runner.sweep();
      sweeper = setInterval(() => {
        runner.sweep().catch((e: unknown) => opts.onError(e, null));
      }, sweepSeconds * 1000);
      sweeper.unref();
    },
    sweep: () => sweepExpired(store, files, now()),
    running: () => live.size,
    async stop() {
      stopping = true;
      if (sweeper) clearInterval(sweeper);
      await Promise.all([...runs]);
    },
  };
  return runner;
}
