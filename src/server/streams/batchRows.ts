/**
 * The rows of one stream batch, as the JSON array text of the raw endpoint's
 * rows (same shape and order): planned by the raw endpoint's own planner over
 * blocks a..b and encoded by the engine, in the lane its cost says (history
 * replays go through the heavy lane, as exports do). Rows are never parsed:
 * the engine's JSON lines are joined into an array as bytes.
 *
 * Streams that ask for the same rows at once share one query: the key holds
 * the query, the blocks and the hashes at both edges, and two snapshots that
 * agree on those hashes hold the same blocks in between.
 */
import type { Readable } from 'node:stream';
import type { DataRoute } from '../../catalog/derive/routes.ts';
import { isSmall, laneOf } from '../../query/lane.ts';
import { planRaw } from '../../query/planRaw.ts';
import type { Store } from '../../store/types.ts';

export interface BatchKey {
  readonly route: DataRoute;
  /** The request's raw-endpoint parameters, without any range. */
  readonly query: Readonly<Record<string, unknown>>;
  readonly from: number;
  readonly fromHash: string | null;
  readonly to: number;
  readonly toHash: string | null;
}

async function collect(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of stream) parts.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(parts);
}

/** JSON lines → one JSON array; a JSON line holds no raw newline, so each one ends a row. */
function arrayOf(lines: Buffer): string {
  const text = lines.toString('utf8').trimEnd();
  return text.length === 0 ? '[]' : `[${text.replaceAll('\n', ',')}]`;
}

async function queryRows(store: Store, k: BatchKey): Promise<{ events: string; count: number }> {
  const p = await planRaw({ store }, k.route, { ...k.query, block_start: k.from, block_end: k.to, format: 'json' });
  const exp = await store.copyToStream(p.sql, p.params, 'json', { lane: laneOf(p.cost.cost), small: isSmall(p.cost.cost) });
  try {
    const bytes = exp.whole ?? (await collect(exp.stream));
    const count = await exp.done;
    return { events: arrayOf(bytes), count };
  } catch (e) {
    exp.cancel();
    throw e;
  }
}

export interface BatchRows {
  rows(store: Store, k: BatchKey): Promise<{ events: string; count: number }>;
}

export function createBatchRows(): BatchRows {
  const inFlight = new Map<string, Promise<{ events: string; count: number }>>();
  return {
    rows(store, k) {
      const key = JSON.stringify([k.route.path, Object.entries(k.query).sort(([a], [b]) => (a < b ? -1 : 1)), k.from, k.fromHash, k.to, k.toHash]);
      const running = inFlight.get(key);
      if (running) return running;
      const p = queryRows(store, k).finally(() => inFlight.delete(key));
      inFlight.set(key, p);
      return p;
    },
  };
}
