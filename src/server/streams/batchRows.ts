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
 *
 * A batch is sent (and charged) in steps of fewer blocks than it was queried
 * for, so each row's block is read off its JSON line once, and a step's rows
 * are a slice of the lines (rows come in block order).
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

/** The rows of one batch: each row's JSON text and its block, in block order. */
export interface Batch {
  readonly lines: readonly string[];
  readonly blocks: readonly number[];
}

/*
 * Inside a JSON string every quote is escaped, so the unescaped `"block_number":`
 * can only be the key; every chain row has it (the stream routes' contract).
 */
const BLOCK_KEY = /"block_number":"?(\d+)/;

/** JSON lines → rows with their blocks; a JSON line holds no raw newline, so each one ends a row. */
export function batchOf(jsonLines: string): Batch {
  const text = jsonLines.trimEnd();
  const lines = text.length === 0 ? [] : text.split('\n');
  const blocks = lines.map((line) => {
    const m = BLOCK_KEY.exec(line);
    if (!m?.[1]) throw new Error('a stream row has no block_number');
    return Number(m[1]);
  });
  return { lines, blocks };
}

/** The first index whose block is at least `block` (blocks ascend). */
function firstAtLeast(blocks: readonly number[], block: number): number {
  let lo = 0;
  let hi = blocks.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((blocks[mid] ?? 0) < block) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The rows of blocks from..to of a batch, as the JSON array text of a `rows` event. */
export function sliceOf(batch: Batch, from: number, to: number): { events: string; count: number } {
  const rows = batch.lines.slice(firstAtLeast(batch.blocks, from), firstAtLeast(batch.blocks, to + 1));
  return { events: `[${rows.join(',')}]`, count: rows.length };
}

async function queryRows(store: Store, k: BatchKey): Promise<Batch> {
  const p = await planRaw({ store }, k.route, { ...k.query, block_start: k.from, block_end: k.to, format: 'json' });
  const exp = await store.copyToStream(p.sql, p.params, 'json', { lane: laneOf(p.cost.cost), small: isSmall(p.cost.cost) });
  try {
    const bytes = exp.whole ?? (await collect(exp.stream));
    const count = await exp.done;
    const batch = batchOf(bytes.toString('utf8'));
    if (batch.lines.length !== count) throw new Error(`a stream batch read ${batch.lines.length} rows where the engine wrote ${count}`);
    return batch;
  } catch (e) {
    exp.cancel();
    throw e;
  }
}

export interface BatchRows {
  rows(store: Store, k: BatchKey): Promise<Batch>;
}

export function createBatchRows(): BatchRows {
  const inFlight = new Map<string, Promise<Batch>>();
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
