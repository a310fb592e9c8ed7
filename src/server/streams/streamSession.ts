/**
 * One connected stream (docs/api.md, "Streams and cursors"): from its
 * position, deliver every covered block in batches up to the head (or its
 * end), then wait on the network's watcher for the next commit; before each
 * batch, check that the position's block is still canonical and send `undo`
 * down to the common ancestor when it is not.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { DataRoute, Finality } from '../../catalog/derive/routes.ts';
import { rangeLimit } from '../../catalog/formats.ts';
import { finalityDepth } from '../../catalog/networks.ts';
import type { ChainEndpoint } from '../../catalog/types.ts';
import { checkPosition, cursorOf, headWithin, type Position } from '../../query/streamPosition.ts';
import { sliceOf, type Batch, type BatchRows } from './batchRows.ts';
import type { ChainView, ChainViews } from './chainViews.ts';
import type { ChainWatchers } from './chainWatcher.ts';
import type { EventWriter } from './sse.ts';
import type { StreamCharges } from './streamCharges.ts';

export interface StreamSpec {
  readonly route: DataRoute;
  readonly endpoint: ChainEndpoint;
  readonly network: string;
  /** The raw endpoint's parameters, without range or stream parameters. */
  readonly query: Readonly<Record<string, unknown>>;
  readonly finality: Finality;
  /** Last block to deliver; null follows the head forever. */
  readonly end: number | null;
}

export interface StreamDeps {
  /** Each look at the store goes through the view shared by the streams woken by the same change. */
  readonly views: ChainViews;
  readonly watchers: ChainWatchers;
  readonly rows: BatchRows;
  readonly heartbeatMs: number;
  readonly log: FastifyBaseLogger;
}

/**
 * The most blocks one charge covers (docs/metering.md, "Stream charges"): a
 * history batch of up to 10,000 blocks is queried at once but sent and
 * charged in steps of this many, so a stream cut at any moment has paid for
 * at most one step it was not sent.
 */
export const STEP_BLOCKS = 1_000;

/** A batch of rows and the positions it is sent up to, step by step (the last is the batch's end). */
interface Delivery {
  readonly batch: Batch;
  readonly steps: readonly Position[];
  /** The batch reaches all the view held for this stream: the next look can wait for the next change. */
  readonly caughtUp: boolean;
}

/** Raised inside a step to end the stream with an error event. */
class StreamStop extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * Runs one wait of a stream on a signal of its own, aborted when the wait is
 * over: whichever of the commit and the heartbeat comes first, the other
 * lets go of its timer, its watcher slot and its listener on the stream's
 * signal at once (rather than pile up, one per batch, until the heartbeat).
 */
async function wakeOrHeartbeat(wait: (signal: AbortSignal) => Promise<void>, stream: AbortSignal): Promise<void> {
  if (stream.aborted) return;
  const over = new AbortController();
  const stop = () => over.abort();
  stream.addEventListener('abort', stop, { once: true });
  try {
    await wait(over.signal);
  } finally {
    over.abort();
    stream.removeEventListener('abort', stop);
  }
}

export async function runStream(spec: StreamSpec, start: Position, out: EventWriter, charges: StreamCharges, deps: StreamDeps, signal: AbortSignal): Promise<void> {
  const { network, endpoint } = spec;
  const batchBlocks = rangeLimit('json', network).blocks;
  let pos = start;
  let head = start.block;
  let lastProgress = 0;
  const cursor = () => cursorOf(endpoint, network, pos);
  const progress = () => {
    out.send('progress', JSON.stringify({ block_number: pos.block, head: Math.max(head, deps.watchers.newest(network) ?? head), cost: charges.charged }), cursor());
    lastProgress = Date.now();
  };

  /**
   * One look at the store: undo if needed, then the steps of at most one
   * batch, each with the hash of its last block (read now, from the same
   * snapshot as the rows). Null when there is nothing new to deliver.
   */
  const look = async (view: ChainView): Promise<Delivery | null> => {
    const snap = view.store;
    const checked = await checkPosition(snap, network, pos, view.hash);
    if (checked.kind === 'unknown') throw new StreamStop('internal_error', `block ${pos.block} of this stream is no longer known to the store; start again from a block`);
    if (checked.kind === 'reorged') {
      if (spec.finality === 'final') throw new StreamStop('internal_error', `block ${pos.block} was rolled back although it was past the finality depth of ${network}`);
      pos = { block: checked.ancestor.number, hash: checked.ancestor.hash };
      out.send('undo', JSON.stringify({ block_number: pos.block, block_hash: pos.hash }), cursor());
    }
    let to = headWithin(await view.covered(endpoint.id), pos.block);
    head = to;
    if (spec.finality === 'final') {
      const newest = (await view.mark()).newest ?? -1;
      to = Math.min(to, newest - finalityDepth(network));
    }
    if (spec.end !== null) to = Math.min(to, spec.end);
    if (to <= pos.block) return null;
    const all = to;
    to = Math.min(to, pos.block + batchBlocks);
    const toHash = await view.hash(to);
    const batch = await deps.rows.rows(snap, { route: spec.route, query: spec.query, from: pos.block + 1, fromHash: pos.hash, to, toHash });
    const steps: Position[] = [];
    for (let end = Math.min(to, pos.block + STEP_BLOCKS); end < to; end += STEP_BLOCKS) steps.push({ block: end, hash: await view.hash(end) });
    steps.push({ block: to, hash: toHash });
    return { batch, steps, caughtUp: to === all };
  };

  /**
   * Sends a batch step by step, each charged before it is sent and only once
   * the client has taken the step before: the meter never runs more than one
   * step ahead of what reached the client's socket.
   */
  const deliver = async ({ batch, steps }: Delivery): Promise<void> => {
    for (const [i, step] of steps.entries()) {
      if (i > 0) await out.drained(signal);
      if (signal.aborted) return;
      const paid = await charges.pay(step.block - pos.block);
      if (!paid.ok) throw new StreamStop(paid.code, paid.error);
      const from = pos.block + 1;
      const { events, count } = sliceOf(batch, from, step.block);
      pos = step;
      if (count > 0) out.send('rows', `{"from_block":${from},"to_block":${step.block},"events":${events}}`, cursor());
    }
    progress();
  };

  try {
    progress();
    while (!signal.aborted) {
      const version = deps.watchers.version(network);
      const held = await deps.views.acquire(network, version);
      let delivery: Delivery | null;
      try {
        delivery = await look(held.view);
      } finally {
        await held.release();
      }
      if (delivery) await deliver(delivery);
      if (spec.end !== null && pos.block >= spec.end) {
        out.send('end', JSON.stringify({ block_number: pos.block }));
        return;
      }
      if (delivery) {
        await out.drained(signal);
        /*
         * A view is taken after its version was counted, so whatever was
         * committed after it moves the version: a stream that took all of
         * it waits for that change rather than look again for nothing.
         */
        if (!delivery.caughtUp) continue;
      }
      const quiet = Math.max(0, deps.heartbeatMs - (Date.now() - lastProgress));
      await wakeOrHeartbeat((wait) => Promise.race([deps.watchers.changed(network, version, wait), sleep(quiet, wait)]), signal);
      if (!signal.aborted && Date.now() - lastProgress >= deps.heartbeatMs) progress();
    }
  } catch (e) {
    if (signal.aborted) return;
    if (e instanceof StreamStop) out.send('error', JSON.stringify({ code: e.code, error: e.message }));
    else {
      deps.log.error({ err: e }, 'stream failed');
      out.send('error', JSON.stringify({ code: 'internal_error', error: 'the stream failed on the server; resume from the last cursor' }));
    }
  } finally {
    out.end();
  }
}
