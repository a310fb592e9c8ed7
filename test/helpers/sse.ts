/**
 * A minimal server-sent-events client for tests: reads a `…/stream` answer
 * over fetch, parses its events, and keeps the rows a consumer holds after
 * applying every `undo` (docs/api.md, "Streams and cursors").
 */
export interface SseEvent {
  readonly event: string;
  readonly id: string | undefined;
  readonly data: Record<string, unknown>;
}

export interface StreamRow {
  readonly block_number: number;
  readonly [column: string]: unknown;
}

export interface OpenStream {
  readonly status: number;
  /** The JSON error body when the answer was not a stream. */
  readonly error: Record<string, unknown> | null;
  /** Every event received so far, in order. */
  readonly events: SseEvent[];
  /** Resolves when the server ends the stream or `close()` is called. */
  readonly ended: Promise<void>;
  /** Resolves with the first event (from now on, or already received) that `match` accepts. */
  waitFor(match: (e: SseEvent) => boolean, timeoutMs?: number): Promise<SseEvent>;
  close(): void;
}

function parse(block: string): SseEvent | null {
  let event = 'message';
  let id: string | undefined;
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) continue;
    const at = line.indexOf(':');
    const field = at === -1 ? line : line.slice(0, at);
    const value = at === -1 ? '' : line.slice(at + 1).replace(/^ /, '');
    if (field === 'event') event = value;
    else if (field === 'id') id = value;
    else if (field === 'data') data.push(value);
  }
  if (data.length === 0) return null;
  return { event, id, data: JSON.parse(data.join('\n')) as Record<string, unknown> };
}

export async function openStream(url: string, key: string, lastEventId?: string): Promise<OpenStream> {
  const ctrl = new AbortController();
  const res = await fetch(url, { headers: { 'x-api-key': key, ...(lastEventId ? { 'last-event-id': lastEventId } : {}) }, signal: ctrl.signal });
  const events: SseEvent[] = [];
  const waiters = new Set<() => void>();
  const notify = () => {
    for (const w of [...waiters]) w();
  };
  if (!(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    const error = (await res.json()) as Record<string, unknown>;
    return { status: res.status, error, events, ended: Promise.resolve(), waitFor: () => Promise.reject(new Error('not a stream')), close: () => undefined };
  }
  const ended = (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        for (let i = buffer.indexOf('\n\n'); i !== -1; i = buffer.indexOf('\n\n')) {
          const e = parse(buffer.slice(0, i));
          buffer = buffer.slice(i + 2);
          if (e) events.push(e);
        }
        notify();
      }
    } catch {
      // Closed by us, or the server went away: the events so far stand.
    }
    notify();
  })();
  let done = false;
  void ended.then(() => {
    done = true;
    notify();
  });
  return {
    status: res.status,
    error: null,
    events,
    ended,
    waitFor(match, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        let seen = 0;
        const check = () => {
          for (; seen < events.length; seen++) {
            if (match(events[seen]!)) {
              cleanup();
              resolve(events[seen]!);
              return;
            }
          }
          if (done) {
            cleanup();
            reject(new Error(`stream ended without the event; got ${events.map((e) => e.event).join(',')}`));
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`no matching event within ${timeoutMs} ms; last: ${JSON.stringify(events.at(-1))}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    close: () => ctrl.abort(),
  };
}

/**
 * What a consumer holds: rows of every `rows` event, less those of blocks
 * above each `undo`'s block, and the last cursor it received.
 */
export class StreamConsumer {
  rows: StreamRow[] = [];
  cursor: string | undefined;
  undos = 0;
  #applied = 0;

  apply(events: readonly SseEvent[]): void {
    for (; this.#applied < events.length; this.#applied++) {
      const e = events[this.#applied]!;
      if (e.event === 'rows') this.rows.push(...(e.data.events as StreamRow[]));
      if (e.event === 'undo') {
        const n = Number(e.data.block_number);
        this.rows = this.rows.filter((r) => r.block_number <= n);
        this.undos++;
      }
      if (e.id !== undefined) this.cursor = e.id;
    }
  }

  /** A new connection's events start from the first again. */
  reconnected(): void {
    this.#applied = 0;
  }
}
