/**
 * The demo dataset's choices that are not engine work: its window (from
 * 2025-12-01, two days by default), the first block per network, and
 * Bitcoin's blocks. The rows themselves are written by the store
 * (`writeDemoStore`), then prices are refreshed from them. Nothing here is
 * real chain data.
 */
import { refreshPrices } from '../reference/prices.ts';
import { writeDemoStore } from '../store/demo.ts';
import type { Store } from '../store/types.ts';
import { BTC_DEMO } from './btc.ts';

export interface DemoOptions {
  /** Multiplies every event rate. */
  readonly scale?: number;
  readonly days?: number;
  /** Window start, epoch milliseconds at 00:00 UTC. */
  readonly start?: number;
  /** Generate only datasets whose id starts with one of these (benchmarks); default all. */
  readonly only?: readonly string[];
}

export const DEMO_START = Date.UTC(2025, 11, 1);

/** The first block of the demo window per network, near the real height on 2025-12-01. */
export const DEMO_START_BLOCKS: Readonly<Record<string, number>> = {
  ETH: 23_910_000,
  ARB: 405_000_000,
  OP: 144_500_000,
  BASE: 38_900_000,
  POLYGON: 79_600_000,
  BSC: 70_000_000,
  AVAX: 73_000_000,
  TRON: 77_800_000,
};

export async function generateDemo(store: Store, opts: DemoOptions = {}): Promise<void> {
  await writeDemoStore(store, { scale: opts.scale ?? 1, days: opts.days ?? 2, start: opts.start ?? DEMO_START, startBlocks: DEMO_START_BLOCKS, only: opts.only, btc: BTC_DEMO });
  await refreshPrices(store);
}
