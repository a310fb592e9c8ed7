/**
 * Reading a stream route in the browser. EventSource cannot send the API key
 * header, so the stream is read with fetch and a maintained SSE parser.
 */
import { createParser } from 'eventsource-parser';
import { ApiCallError, call } from './api.ts';
import type { WireEvent } from './follow.ts';

/**
 * Reads the stream at `target` (the `/stream` path with its query) and hands
 * each event to `onEvent` until the stream ends, fails or `signal` aborts.
 * A refusal before the stream starts is thrown as ApiCallError.
 */
export async function followStream(target: string, key: string, onEvent: (e: WireEvent) => void, signal: AbortSignal): Promise<void> {
  const res = await call(target, key, { headers: { accept: 'text/event-stream' }, signal });
  if (!res.body) throw new ApiCallError({ status: res.status, code: 'error', message: 'the stream has no body' });
  const parser = createParser({ onEvent: (m) => onEvent({ event: m.event ?? 'message', id: m.id ?? null, data: m.data }) });
  // Decoded here rather than through a TextDecoderStream: a pipe drops the chunks it holds when the
  // connection breaks, and every event that arrived before the break should count.
  const decoder = new TextDecoder();
  const reader = res.body.getReader();
  try {
    for (;;) {
      const next = await reader.read();
      if (next.done) return;
      parser.feed(decoder.decode(next.value, { stream: true }));
    }
  } finally {
    reader.releaseLock();
    await res.body.cancel().catch(() => undefined);
  }
}
