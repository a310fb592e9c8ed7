/**
 * Live streams of a raw event endpoint (`GET …/events/{event}/stream`, docs/api.md,
 * "Streams and cursors"): the server-sent events read as typed values, and the
 * reconnection a long-lived consumer needs. A dropped connection is resumed from
 * the last cursor received (Last-Event-ID), so that no block is missed or sent
 * twice; an answer the server meant (a 4xx, an `error` event) is thrown instead.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { API_ERRORS } from '../errors/codes.ts';
import { backoffDelay } from '../utils/backoff.ts';
import { sleep as waitMs } from '../utils/sleep.ts';
import { ChainqError, errorFrom, IncompleteResponseError } from './errors.ts';

/** Rows of blocks `from_block`..`to_block`, complete when it arrives, in the raw endpoint's shape and order. */
export interface RowsEvent<Row> {
  readonly type: 'rows';
  /** Resume after this event with `{ cursor }` (or pull with it). */
  readonly cursor: string;
  readonly from_block: number;
  readonly to_block: number;
  readonly events: Row[];
}

/** Every row of a block above `block_number` sent before is void (the chain reorganised). */
export interface UndoEvent {
  readonly type: 'undo';
  readonly cursor: string;
  readonly block_number: number;
  readonly block_hash: string;
}

/** Delivered up to `block_number`; `head` is the newest block known; `cost` the blocks charged so far. */
export interface ProgressEvent {
  readonly type: 'progress';
  readonly cursor: string;
  readonly block_number: number;
  readonly head: number;
  readonly cost: number;
}

/** The requested end is delivered; the stream is over. `cursor` is the last one received (null if none was). */
export interface EndEvent {
  readonly type: 'end';
  readonly cursor: string | null;
  readonly block_number: number;
}

export type StreamEvent<Row> = RowsEvent<Row> | UndoEvent | ProgressEvent | EndEvent;

export interface StreamOptions {
  /** Start after this cursor instead of at block_start/since. */
  readonly cursor?: string;
  /** Stops the stream: the iterator then returns. */
  readonly signal?: AbortSignal;
  /** Reconnections in a row (with no event received between them) before the stream gives up. Default 10. */
  readonly maxReconnects?: number;
  /** The first wait before reconnecting, doubled on each failure in a row. Default 500 ms. */
  readonly reconnectBaseMs?: number;
  /** The longest wait before reconnecting. Default 30 s. */
  readonly reconnectMaxMs?: number;
}

/** What the stream needs from the client: one GET whose 2xx body it reads; a non-2xx answer is thrown as a typed error. */
export interface StreamTransport {
  open(target: string, headers: Readonly<Record<string, string>>, signal: AbortSignal | undefined): Promise<{ body: ReadableStream<Uint8Array>; headers: Headers }>;
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** An event the client cannot read: a server bug that reconnecting would meet again. */
export class InvalidStreamEventError extends Error {
  override readonly name = 'InvalidStreamEventError';
}

/** The connection broke, or the server failed, for a reason another attempt may not meet: reconnect. */
function isTransient(e: unknown): boolean {
  if (e instanceof ChainqError) return e.status >= 500;
  return !(e instanceof InvalidStreamEventError);
}

/** A start parameter: a resumed stream names its start by Last-Event-ID instead. */
const START_PARAMS = new Set(['block_start', 'since', 'cursor']);

function withoutStart(params: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(params).filter(([k]) => !START_PARAMS.has(k)));
}

function search(params: Readonly<Record<string, string>>): string {
  const s = new URLSearchParams(params).toString();
  return s ? `?${s}` : '';
}

/** The HTTP status the API answers an error code with, for the error class of an `error` event. */
function statusOf(code: string): number {
  return Object.hasOwn(API_ERRORS, code) ? API_ERRORS[code as keyof typeof API_ERRORS] : 500;
}

interface WireFields {
  readonly [field: string]: unknown;
}

function num(data: WireFields, field: string): number {
  const v = data[field];
  if (typeof v !== 'number') throw new InvalidStreamEventError(`stream event without a numeric ${field}`);
  return v;
}

function parseData(msg: EventSourceMessage): WireFields {
  try {
    const data: unknown = JSON.parse(msg.data);
    if (typeof data === 'object' && data !== null && !Array.isArray(data)) return data as WireFields;
  } catch {}
  throw new InvalidStreamEventError(`${msg.event ?? 'message'} event whose data is not a JSON object`);
}

/** One parsed server-sent event as a typed value; null for an event type this client does not know (newer servers). */
function toEvent<Row>(msg: EventSourceMessage, lastCursor: string | null): StreamEvent<Row> | null {
  const data = parseData(msg);
  const cursor = msg.id ?? lastCursor ?? '';
  switch (msg.event) {
    case 'rows':
      if (!Array.isArray(data.events)) throw new InvalidStreamEventError('rows event without events');
      return { type: 'rows', cursor, from_block: num(data, 'from_block'), to_block: num(data, 'to_block'), events: data.events as Row[] };
    case 'undo':
      return { type: 'undo', cursor, block_number: num(data, 'block_number'), block_hash: String(data.block_hash) };
    case 'progress':
      return { type: 'progress', cursor, block_number: num(data, 'block_number'), head: num(data, 'head'), cost: num(data, 'cost') };
    case 'end':
      return { type: 'end', cursor: msg.id ?? lastCursor, block_number: num(data, 'block_number') };
    default:
      return null;
  }
}

/**
 * The events of one stream, across reconnections. `path` is the stream route;
 * `params` its query (strings already); the iterator ends after `end`, or when
 * `signal` aborts.
 */
export async function* streamEvents<Row>(transport: StreamTransport, path: string, params: Readonly<Record<string, string>>, opts: StreamOptions = {}): AsyncGenerator<StreamEvent<Row>> {
  const sleep = transport.sleep ?? waitMs;
  const policy = { baseMs: opts.reconnectBaseMs ?? 500, maxMs: opts.reconnectMaxMs ?? 30_000, jitter: 0.25 };
  const maxReconnects = opts.maxReconnects ?? 10;
  let cursor: string | null = opts.cursor ?? null;
  let failures = 0;

  while (!opts.signal?.aborted) {
    const queue: EventSourceMessage[] = [];
    const parser = createParser({ onEvent: (m) => queue.push(m) });
    let ended = false;
    try {
      // Once a cursor is known, each connection starts after it, named by Last-Event-ID as an EventSource would.
      const headers: Record<string, string> = cursor === null ? { accept: 'text/event-stream' } : { accept: 'text/event-stream', 'last-event-id': cursor };
      const res = await transport.open(`${path}${search(cursor === null ? params : withoutStart(params))}`, headers, opts.signal);
      const requestId = res.headers.get('x-request-id');
      // Decoded here rather than through a TextDecoderStream: a pipe drops the chunks it holds when the
      // connection breaks, and every event that arrived before the break should count.
      const decoder = new TextDecoder();
      const reader = res.body.getReader();
      try {
        for (;;) {
          let next: Awaited<ReturnType<typeof reader.read>>;
          try {
            next = await reader.read();
          } catch (e) {
            if (opts.signal?.aborted) return;
            throw new IncompleteResponseError(requestId, { cause: e });
          }
          if (next.done) break;
          parser.feed(decoder.decode(next.value, { stream: true }));
          for (let msg = queue.shift(); msg !== undefined; msg = queue.shift()) {
            if (msg.event === 'error') {
              const body = parseData(msg);
              const code = typeof body.code === 'string' ? body.code : 'internal_error';
              ended = true;
              throw errorFrom(statusOf(code), JSON.stringify({ status: 'error', ...body, code }), res.headers);
            }
            const event = toEvent<Row>(msg, cursor);
            if (event === null) continue;
            failures = 0;
            if (event.type !== 'end' && msg.id !== undefined) cursor = msg.id;
            yield event;
            if (event.type === 'end') {
              ended = true;
              return;
            }
          }
        }
      } finally {
        reader.releaseLock();
        await res.body.cancel().catch(() => undefined);
      }
      // The body closed without `end` or `error`: the connection was dropped.
      throw new IncompleteResponseError(requestId);
    } catch (e) {
      if (ended || opts.signal?.aborted) {
        if (opts.signal?.aborted && !ended) return;
        throw e;
      }
      if (!isTransient(e) || failures >= maxReconnects) throw e;
    }
    failures += 1;
    await sleep(backoffDelay(policy, failures), opts.signal);
  }
}
