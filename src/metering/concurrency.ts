/**
 * Requests in flight per key on this server, against the plan's
 * `concurrent_requests` (docs/metering.md). Counted per server process: the
 * limit guards a server's engine and connections, which is where one key's
 * burst of exports would crowd out everyone else.
 */
export interface ConcurrencyGate {
  /** Takes a slot for `keyId`, or null when `limit` are already in flight. `leave` is idempotent. */
  enter(keyId: string, limit: number | null): (() => void) | null;
  /** Requests of `keyId` in flight now. */
  inFlight(keyId: string): number;
}

export function createConcurrencyGate(): ConcurrencyGate {
  const counts = new Map<string, number>();
  return {
    enter(keyId, limit) {
      const n = counts.get(keyId) ?? 0;
      if (limit !== null && n >= limit) return null;
      counts.set(keyId, n + 1);
      let left = false;
      return () => {
        if (left) return;
        left = true;
        const now = (counts.get(keyId) ?? 1) - 1;
        if (now === 0) counts.delete(keyId);
        else counts.set(keyId, now);
      };
    },
    inFlight: (keyId) => counts.get(keyId) ?? 0,
  };
}
