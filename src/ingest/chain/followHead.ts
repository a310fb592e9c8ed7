/**
 * The follow loop of every chain adapter (`--follow`), once its backfill is
 * done: wait `pollMs`, then run one round (ingest the blocks that became
 * confirmed), until the signal aborts or a round says there is nothing more
 * to follow (an end block was reached).
 */
import { sleep } from '../../utils/sleep.ts';

export interface FollowHeadOptions {
  readonly pollMs: number;
  /** One round; false ends the loop. */
  readonly round: () => Promise<boolean>;
  readonly signal?: AbortSignal | undefined;
}

export async function followHead(opts: FollowHeadOptions): Promise<void> {
  while (!opts.signal?.aborted) {
    await sleep(opts.pollMs, opts.signal);
    if (opts.signal?.aborted) return;
    if (!(await opts.round())) return;
  }
}
