/** The contract between the bench runner and its scenarios. */
export interface BenchContext {
  /** A scratch directory for this scenario, emptied before it runs. */
  readonly workDir: string;
  /** Repository root. */
  readonly root: string;
  log(message: string): void;
}

export interface BenchFigure {
  /** What is measured, e.g. "erc20 10k blocks csv end to end". */
  readonly name: string;
  /** The headline: measured / baseline (or baseline / measured, as `ratio_meaning` says). */
  readonly ratio: number;
  readonly ratio_meaning: string;
  readonly baseline: string;
  /** Target from the issue, when there is one, e.g. "<= 1.5". */
  readonly target?: string;
  readonly measured: Record<string, number | string>;
}

export interface BenchResult {
  readonly scenario: string;
  readonly figures: readonly BenchFigure[];
  readonly notes?: readonly string[];
}
