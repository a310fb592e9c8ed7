/**
 * Server-sent events on a response body (docs/api.md, "Streams and cursors"):
 * each event is `event:`, an optional `id:` (the cursor) and one `data:` line
 * of JSON. Writing waits while the client is behind, so a stream never holds
 * more than a socket's worth of unread events.
 */
import { once } from 'node:events';
import { PassThrough } from 'node:stream';

export type EventName = 'rows' | 'undo' | 'progress' | 'end' | 'error';

export class EventWriter {
  readonly body = new PassThrough({ highWaterMark: 64 * 1024 });

  /** Queues one event; false once the body has closed. */
  send(event: EventName, data: string, id?: string): boolean {
    if (this.body.destroyed || this.body.writableEnded) return false;
    this.body.write(`event: ${event}\n${id === undefined ? '' : `id: ${id}\n`}data: ${data}\n\n`);
    return true;
  }

  /** Resolves when what was queued has moved on to the client, or the body or `signal` has closed. */
  async drained(signal: AbortSignal): Promise<void> {
    if (!this.body.writableNeedDrain || this.body.destroyed) return;
    await Promise.race([once(this.body, 'drain', { signal }).catch(() => undefined), once(this.body, 'close').catch(() => undefined)]);
  }

  end(): void {
    if (!this.body.writableEnded) this.body.end();
  }
}
