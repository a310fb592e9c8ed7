/**
 * The node pool on its own: which node a request goes to, how a node's pace
 * follows its answers, and how a failing node is left out and taken back.
 * The nodes are async functions answering after a set time.
 */
import { describe, expect, it } from 'vitest';
import { sleep } from '../../utils/sleep.ts';
import { createNodePool, type Verdict } from './nodePool.ts';

class Fault extends Error {
  constructor(
    readonly verdict: Verdict,
    message: string = verdict.kind,
  ) {
    super(message);
  }
}
const judge = (e: unknown): Verdict => (e instanceof Fault ? e.verdict : { kind: 'answer' });
const backoff = { baseMs: 20, maxMs: 200 };

describe('node pool', () => {
  it('sends requests to the node that answers faster, and the overflow to the slower one', async () => {
    const names: ('fast' | 'slow')[] = ['fast', 'slow'];
    const pool = createNodePool(names, (n) => n, { concurrency: 4, backoff, retries: 2 });
    const served = { fast: 0, slow: 0 };
    const delay = { fast: 5, slow: 150 };
    const call = () =>
      pool.run(async (node) => {
        served[node]++;
        await sleep(delay[node]);
      }, judge);
    // Both measured first, then groups of three: each fits in the fast node's four slots.
    await Promise.all([call(), call()]);
    served.fast = 0;
    served.slow = 0;
    for (let i = 0; i < 10; i++) await Promise.all([call(), call(), call()]);
    expect(served).toEqual({ fast: 30, slow: 0 });
    // Groups of six: the fast node's four slots are taken, the rest goes to the slow node.
    for (let i = 0; i < 5; i++) await Promise.all(Array.from({ length: 6 }, call));
    expect(served.slow).toBeGreaterThanOrEqual(5);
    const [fast, slow] = pool.status();
    expect(fast!.latencyMs!).toBeLessThan(slow!.latencyMs!);
  });

  it('moves a call that meets a dead node to the other node at once, and leaves the dead node out', async () => {
    const pool = createNodePool(['dead', 'live'], (n) => n, { concurrency: 8, backoff: { baseMs: 5_000, maxMs: 5_000 }, retries: 3 });
    const calls: string[] = [];
    const t0 = performance.now();
    const out = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        pool.run(async (node) => {
          calls.push(node);
          if (node === 'dead') throw new Fault({ kind: 'down' }, 'connection refused');
          await sleep(2);
          return i;
        }, judge),
      ),
    );
    expect(out).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(performance.now() - t0).toBeLessThan(4_000); // nobody waited out the dead node's 5 s
    // Only the requests sent before its first failure reached the dead node.
    expect(calls.filter((n) => n === 'dead').length).toBeLessThanOrEqual(8);
    expect(pool.status()[0]!.state).toBe('out');
  });

  it('halves the in-flight limit of a node that rate-limits, honours its Retry-After, and regains the limit after successes', async () => {
    const pool = createNodePool(['only'], (n) => n, { concurrency: 8, backoff, retries: 3 });
    let throttle = true;
    let sentAfter429: number | null = null;
    let throttledAt = 0;
    await pool.run(async () => {
      if (throttle) {
        throttle = false;
        throttledAt = performance.now();
        throw new Fault({ kind: 'throttled', retryAfterMs: 300 });
      }
      sentAfter429 = performance.now() - throttledAt;
    }, judge);
    expect(sentAfter429).toBeGreaterThanOrEqual(280);
    expect(pool.status()[0]!.limit).toBe(4);
    for (let i = 0; i < 40; i++) await pool.run(async () => undefined, judge);
    expect(pool.status()[0]!.limit).toBe(8);
  });

  it('paces a node to its maximum rate, halves the rate on a timeout, and lets it grow back', async () => {
    const pool = createNodePool(['only'], (n) => n, { concurrency: 8, maxRate: 50, backoff, retries: 3 });
    const t0 = performance.now();
    await Promise.all(Array.from({ length: 11 }, () => pool.run(async () => undefined, judge)));
    // 11 requests at 50 per second: the last one starts 200 ms after the first.
    expect(performance.now() - t0).toBeGreaterThanOrEqual(190);
    let timedOut = false;
    await pool.run(async () => {
      if (!timedOut) {
        timedOut = true;
        throw new Fault({ kind: 'timeout' });
      }
    }, judge);
    expect(pool.status()[0]!.rate).toBeCloseTo(25 * 1.05); // halved, then one success of the retry
    for (let i = 0; i < 20; i++) await pool.run(async () => undefined, judge);
    expect(pool.status()[0]!.rate).toBe(50);
  });

  it('probes a node whose time out is over with one request, and takes it back when it answers', async () => {
    const pool = createNodePool(['a', 'b'], (n) => n, { concurrency: 4, backoff: { baseMs: 100, maxMs: 100 }, retries: 3 });
    let aAlive = false;
    const seen: string[] = [];
    const call = () =>
      pool.run(async (node) => {
        seen.push(node);
        if (node === 'a' && !aAlive) throw new Fault({ kind: 'down' });
        await sleep(5);
      }, judge);
    await Promise.all(Array.from({ length: 8 }, call));
    expect(pool.status()[0]!.state).not.toBe('up');
    aAlive = true;
    await sleep(150);
    seen.length = 0;
    for (let i = 0; i < 6; i++) await Promise.all(Array.from({ length: 4 }, call));
    expect(seen.filter((n) => n === 'a').length).toBeGreaterThan(4);
    expect(pool.status()[0]!.state).toBe('up');
  });

  it('gives up after the retries, with the last error, when every node fails', async () => {
    const pool = createNodePool(['a', 'b'], (n) => n, { concurrency: 4, backoff: { baseMs: 1, maxMs: 2 }, retries: 3 });
    let attempts = 0;
    await expect(
      pool.run(async () => {
        attempts++;
        throw new Fault({ kind: 'down' }, `refused ${attempts}`);
      }, judge),
    ).rejects.toThrow('refused 4');
    expect(attempts).toBe(4);
  });

  it('does not retry an error that is the answer', async () => {
    const pool = createNodePool(['a', 'b'], (n) => n, { concurrency: 4, backoff, retries: 3 });
    let attempts = 0;
    await expect(
      pool.run(async () => {
        attempts++;
        throw new Error('execution reverted');
      }, judge),
    ).rejects.toThrow('execution reverted');
    expect(attempts).toBe(1);
    expect(pool.status().every((s) => s.state === 'up')).toBe(true);
  });
});
