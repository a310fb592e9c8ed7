/**
 * Admission of engine exports by lane (README, "Fair scheduling"): small results and heavy ones wait in
 * separate queues, so a 10-block query never queues behind someone's
 * million-row download. The heavy lane admits few at once, which also bounds
 * how much of the engine's threads heavy work can hold together.
 */
import { Semaphore } from '../utils/semaphore.ts';

/** Which queue an export waits in; the planner picks it from the planned cost (src/query/lane.ts). */
export type ExportLane = 'light' | 'heavy';

export interface ExportLaneLimits {
  /** Light exports running at once. */
  readonly light: number;
  /** Heavy exports running at once; null puts every export in one queue of `light` (fair scheduling off). */
  readonly heavy: number | null;
}

export interface ExportLanes {
  acquire(lane: ExportLane): Promise<() => void>;
}

export function createExportLanes(limits: ExportLaneLimits): ExportLanes {
  const light = new Semaphore(limits.light);
  const heavy = limits.heavy === null ? light : new Semaphore(limits.heavy);
  return { acquire: (lane) => (lane === 'heavy' ? heavy : light).acquire() };
}

/**
 * The shipped limits on a machine with `threads` engine threads: heavy work
 * may keep all but one thread busy, so small queries find one on larger
 * machines, and never fewer than two heavy at once, so that one client that
 * stops reading its download cannot hold up every heavy export (a stalled
 * export keeps its slot: the engine waits on it). On 2 cores: two
 * (bench/results/latency.json; with one, small queries waited less and the
 * server served 0.81x the bytes, README "Performance").
 */
export function defaultLaneLimits(threads: number): ExportLaneLimits {
  return { light: 8, heavy: Math.max(2, threads - 1) };
}

/**
 * Background work that gives way to interactive work: an engine export given
 * one writes its output piece by piece and asks for a turn before each piece,
 * so that while the engine waits on a piece nobody takes, its threads are
 * free for small queries. A store may ignore it (it then writes at full speed).
 */
export interface ExportThrottle {
  /** Resolves when the export may write its next piece. */
  turn(): Promise<void>;
}
