/**
 * The two clocks of metering, both in UTC: the monthly budget period (resets
 * at 00:00 on the 1st) and the fixed one-minute rate-limit window (aligned to
 * whole minutes of the Unix epoch, so every instance agrees on it).
 */

export type Clock = () => number;
export const systemClock: Clock = () => Date.now();

export const WINDOW_MS = 60_000;

/** `YYYY-MM` of the month containing `ms`. */
export function monthPeriod(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
}

/** Epoch ms of 00:00 UTC on the first day of the month after the one containing `ms`. */
export function nextMonthStart(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

export const PERIOD_PATTERN = /^\d{4}-(0[1-9]|1[0-2])$/;

/** Index of the one-minute window containing `ms`. */
export const windowIndex = (ms: number): number => Math.floor(ms / WINDOW_MS);

/** Whole seconds until the window containing `ms` ends: 1 to 60. */
export function secondsToWindowEnd(ms: number): number {
  const end = (windowIndex(ms) + 1) * WINDOW_MS;
  return Math.max(1, Math.ceil((end - ms) / 1000));
}
