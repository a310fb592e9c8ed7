/**
 * A node's answer that lacks part of what the block says it holds (logs,
 * transaction infos, transactions, input prevouts). Such a block must never
 * be covered: the answer is asked for again with the run's retry policy, and
 * when it stays incomplete the batch fails with this error, naming the block.
 */
import { withRetry, type RetryPolicy } from '../http/retry.ts';
import { SourceError } from '../../errors/chainqError.ts';

export class IncompleteBlockError extends SourceError {
  readonly block: number;
  constructor(network: string, block: number, what: string) {
    super(`${network} block ${block}: the node's answer is incomplete (${what}); the block is left uncovered`);
    this.block = block;
  }
}

/** Runs `fetch` until `check` finds its answer whole (check throws IncompleteBlockError otherwise), within the policy's retries. */
export function fetchWhole<T>(policy: RetryPolicy, fetch: () => Promise<T>, check: (answer: T) => void): Promise<T> {
  return withRetry(
    policy,
    async () => {
      const answer = await fetch();
      check(answer);
      return answer;
    },
    (e) => e instanceof IncompleteBlockError,
  );
}
