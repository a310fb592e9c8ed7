/**
 * Waits `ms`, or less when `signal` aborts first. Never rejects: a caller that
 * must stop on abort checks the signal afterwards, so that a stop requested
 * during a pause is handled where the work is, not as a stray rejection.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, Math.max(0, ms));
    signal?.addEventListener('abort', done, { once: true });
  });
}
