/**
 * Runs an ingest command's job: inside the server that holds the store when
 * one is running (its messages stream back over the operator channel), else
 * in this process. Either way the same messages reach the same display, and
 * Ctrl-C stops the job at a batch boundary (a second Ctrl-C leaves at once;
 * committed work is kept).
 */
import path from 'node:path';
import type { JobSpec } from '../operator/jobSpec.ts';
import { runJob, type JobMessage } from '../operator/runJob.ts';
import { runningServer } from './operate.ts';
import { openStore } from './options.ts';

export interface IngestRunOptions {
  readonly data: string;
  /** `--store`, when the store is not DuckDB in `data`. */
  readonly store?: string | undefined;
  readonly memoryLimit?: string;
  readonly threads?: number;
  /** Leave the job running in the server and return. */
  readonly detach?: boolean;
}

export type JobEnd = Extract<JobMessage, { type: 'done' | 'failed' }> | { readonly type: 'detached'; readonly id: string };

export async function runIngestJob(opts: IngestRunOptions, spec: JobSpec, show: (m: JobMessage) => void, note: (text: string) => void): Promise<JobEnd> {
  let interrupted = 0;
  let stop: () => void = () => undefined;
  const onSignal = () => {
    if (++interrupted > 1) process.exit(130);
    note('stopping after the batch in progress (Ctrl-C again to quit at once; committed work is kept)');
    stop();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const server = await runningServer(opts.data);
    if (server) {
      const run = await server.startJob(spec, { detach: opts.detach ?? false, onMessage: show });
      if (opts.detach) {
        note(`job ${run.id} runs in the server (pid ${server.info.pid}); see \`chainq status\`, stop it with \`chainq jobs stop ${run.id}\``);
        return { type: 'detached', id: run.id };
      }
      note(`running in the server (pid ${server.info.pid}) as job ${run.id}`);
      stop = () => {
        run.stop().catch(() => undefined);
      };
      return await run.ended;
    }
    if (opts.detach) throw new Error('--detach needs a running server (chainq serve) on this data directory');
    const store = await openStore(opts);
    const controller = new AbortController();
    stop = () => controller.abort(new Error('interrupted'));
    try {
      const result = await runJob({ store, dataDir: path.resolve(opts.data), signal: controller.signal, emit: show }, spec);
      const end = { type: 'done', result, interrupted: controller.signal.aborted } as const;
      show(end);
      return end;
    } catch (e) {
      const end: JobMessage = { type: 'failed', message: e instanceof Error ? e.message : String(e), ...(controller.signal.aborted ? { interrupted: true } : {}) };
      show(end);
      return end;
    } finally {
      await store.close();
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
