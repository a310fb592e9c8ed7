import { describe, expect, it } from 'vitest';
import { backoffDelay, MAX_RETRY_AFTER_MS } from './backoff.ts';

describe('backoffDelay', () => {
  const policy = { baseMs: 100, maxMs: 1_000 };

  it('doubles from the base on each attempt and stops at the cap', () => {
    expect([1, 2, 3, 4, 5, 6].map((a) => backoffDelay(policy, a))).toEqual([100, 200, 400, 800, 1_000, 1_000]);
  });

  it('lets a longer Retry-After win, a shorter one not, and caps it at five minutes', () => {
    expect(backoffDelay(policy, 1, 2_000)).toBe(2_000);
    expect(backoffDelay(policy, 3, 50)).toBe(400);
    expect(backoffDelay(policy, 1, 3_600_000)).toBe(MAX_RETRY_AFTER_MS);
  });

  it('spreads a wait by the jitter fraction around the exponential value', () => {
    const jittered = { ...policy, jitter: 0.25 };
    expect(backoffDelay(jittered, 2, undefined, () => 0)).toBe(150);
    expect(backoffDelay(jittered, 2, undefined, () => 1)).toBe(250);
    expect(backoffDelay(jittered, 2, undefined, () => 0.5)).toBe(200);
  });

  it('does not overflow on a very high attempt count', () => {
    expect(backoffDelay(policy, 10_000)).toBe(1_000);
  });
});
