/**
 * How an adapter reports what it does, without knowing who listens: the CLI
 * draws a progress bar, tests record, servers log. Also the crash hook that
 * lets tests stop a run right after a checkpoint commits.
 */
import type { PublishStep } from '../store/types.ts';

export interface IngestProgress {
  /** A new phase with `total` units of work (files, hours, block batches). */
  start(label: string, total: number): void;
  /** `n` units finished; `unit` names the last one. */
  advance(n: number, unit: string): void;
  /** A line for the operator: a missing file, a retry, a partial day. */
  note(message: string): void;
  stop(): void;
}

export const silentProgress: IngestProgress = { start() {}, advance() {}, note() {}, stop() {} };

/** What one adapter run did. Counts are units: files, hours or days for venues; blocks for chains. */
export interface IngestSummary {
  /** Units written (each in its own transaction with its checkpoint). */
  done: number;
  /** Units skipped because their checkpoint says they are already ingested. */
  skipped: number;
  /** Units the source does not have (a 404 or an absent file): nothing recorded. */
  missing: string[];
  /** Units written but not marked complete (a partial day): their rows are stored, the range stays a gap. */
  partial: string[];
  /** Units that failed after retries; the run goes on with the others. */
  failed: string[];
  rows: number;
}

export const emptySummary = (): IngestSummary => ({ done: 0, skipped: 0, missing: [], partial: [], failed: [], rows: 0 });

export interface IngestHooks {
  /** Runs after each committed unit; a test throws here to simulate a crash between checkpoints. */
  readonly afterCommit?: (unit: string) => void | Promise<void>;
  /**
   * ClickHouse stores: runs after each step of a publish (docs/storage.md, "Writes without
   * transactions"); a test throws here to simulate a crash inside one.
   */
  readonly duringPublish?: (step: PublishStep) => void | Promise<void>;
  readonly signal?: AbortSignal;
}
