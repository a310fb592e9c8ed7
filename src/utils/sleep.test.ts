import { describe, expect, it } from 'vitest';
import { sleep } from './sleep.ts';

describe('sleep', () => {
  it('waits the time given', async () => {
    const t0 = performance.now();
    await sleep(60);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(55);
  });

  it('ends as soon as the signal aborts, without rejecting', async () => {
    const c = new AbortController();
    const t0 = performance.now();
    setTimeout(() => c.abort(new Error('stop')), 20);
    await expect(sleep(10_000, c.signal)).resolves.toBeUndefined();
    expect(performance.now() - t0).toBeLessThan(5_000);
  });

  it('returns at once when the signal is already aborted', async () => {
    const t0 = performance.now();
    await sleep(10_000, AbortSignal.abort());
    expect(performance.now() - t0).toBeLessThan(5_000);
  });
});
