/**
 * What the store's demo is given (see demo.ts): the parts of the demo that
 * are not engine work. Apart from demo.ts so that the engine's generators
 * read these types without importing their caller.
 */
/** A Bitcoin block header of the demo, times in epoch milliseconds. */
export interface BtcDemoHeader {
  readonly number: number;
  readonly time: number;
  readonly hash: string;
  readonly parentHash: string;
}

/** Bitcoin's demo blocks and their transfer rows, in the transfer table's column order. */
export interface BtcDemoBlocks {
  readonly blocks: readonly BtcDemoHeader[];
  readonly transfers: readonly (readonly (string | number | bigint | null)[])[];
}

/** Where Bitcoin's demo goes, and how its blocks are built. */
export interface BtcDemoSource {
  readonly network: string;
  readonly dataset: string;
  /** The first block covered (an earlier one may be written, before the window). */
  readonly firstBlock: number;
  /** Builds the blocks, given the labelled addresses of the network some payments use. */
  readonly build: (window: DemoWindow, labelled: readonly string[]) => BtcDemoBlocks;
}

/** The window and time zero of the demo's events. */
export interface DemoWindow {
  /** Multiplies every event rate. */
  readonly scale: number;
  readonly days: number;
  /** Window start, epoch milliseconds at 00:00 UTC. */
  readonly start: number;
}

export interface DemoPlan extends DemoWindow {
  /** The first block of the window per network. */
  readonly startBlocks: Readonly<Record<string, number>>;
  /** Generate only datasets whose id starts with one of these (benchmarks); default all. */
  readonly only?: readonly string[] | undefined;
  readonly btc: BtcDemoSource;
}
