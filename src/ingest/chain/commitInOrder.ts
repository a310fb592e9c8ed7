/**
 * The pipeline every chain adapter's backfill runs (EVM, Tron, Bitcoin):
 * batches are fetched ahead (at most `window` in flight), handed back strictly
 * in block order, checked against what is stored, and committed one after
 * another. The write of one batch runs in the engine while the next one is
 * taken, checked and prepared, so fetching, decoding and writing overlap;
 * commits themselves never overlap and never run out of order.
 */
import type { Interval } from '../../store/coverage.ts';
import { fetchAhead } from './fetchAhead.ts';

/** How a run of the pipeline ended: every range committed, a reorg handled (the caller plans again), or the signal aborted. */
export type PipelineOutcome = 'done' | 'reorged' | 'stopped';

export interface CommitInOrderOptions<B> {
  /** The next range to fetch (sized from what was fetched so far), or null when there is none. */
  readonly next: () => Interval | null;
  readonly fetch: (lo: number, hi: number) => Promise<B>;
  /** Batches fetched ahead of the one being committed. */
  readonly window: number;
  /**
   * Checks a fetched batch and prepares its write; runs while the previous
   * batch's write may still be in flight. `settle` waits for that write (call
   * it before anything that reads or changes what it writes). Returns the
   * write to start, or null when the batch showed a reorg that was handled:
   * the run then ends as 'reorged'.
   */
  readonly prepare: (batch: B, settle: () => Promise<void>) => Promise<(() => Promise<void>) | null>;
  /** Ends the run as 'stopped' between two batches, once the write in flight is done. */
  readonly signal?: AbortSignal | undefined;
  /** Called when the run fails, before waiting for the fetches still in flight (to make them end soon). */
  readonly onFailure?: (() => void) | undefined;
  /**
   * When given, fetches still in flight when the run ends are awaited (none
   * outlives the run) and each batch fetched but never committed is handed
   * here (to drop what it holds, such as a spooled file).
   */
  readonly release?: ((batch: B) => void) | undefined;
}

export async function commitInOrder<B>(opts: CommitInOrderOptions<B>): Promise<PipelineOutcome> {
  const ahead = fetchAhead(opts.next, opts.fetch, opts.window);
  let writing: Promise<void> | null = null;
  const settle = async () => {
    const w = writing;
    writing = null;
    if (w) await w;
  };
  try {
    for (;;) {
      if (opts.signal?.aborted) {
        await settle();
        return 'stopped';
      }
      let batch: B | null;
      try {
        batch = await ahead.take();
      } catch (e) {
        await settle();
        if (opts.signal?.aborted) return 'stopped';
        throw e;
      }
      if (batch === null) break;
      const write = await opts.prepare(batch, settle);
      await settle();
      if (!write) return 'reorged';
      writing = write();
      writing.catch(() => undefined); // surfaced by settle()
    }
    await settle();
    return 'done';
  } catch (e) {
    opts.onFailure?.();
    throw e;
  } finally {
    const release = opts.release;
    if (release) for (const r of await ahead.settleAll()) if (r.status === 'fulfilled') release(r.value);
  }
}
