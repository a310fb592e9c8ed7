/**
 * A JSON-RPC answer's `result` array, streamed out of the body as it arrives,
 * without parsing it: large `eth_getLogs` answers go to the engine as they
 * came (DuckDB parses JSON faster than V8 and builds no JS object per log),
 * and no answer is ever whole in memory.
 *
 * The envelope is read from the first bytes: a string value cannot hold an
 * unescaped `"result"` followed by `:` and `[`, so the first such token is
 * the key. The array's contents go to the sink; the last bytes are held back
 * until the body ends, because the array ends at the body's last `]`
 * (whatever follows it, `,"id":1}`, holds no bracket). The envelope, with the
 * array emptied, is then parsed to check that it is a plain result. Anything
 * else (an error object, a result that is not an array) comes back whole, for
 * the caller's ordinary JSON parse.
 */
const KEY = Buffer.from('"result"');
/** An envelope whose array has not started within this many bytes is read whole. */
const HEAD_MAX = 64 * 1024;
/** Bytes held back: the array's `]` and what follows it must fit. */
const TAIL = 1024;

const isSpace = (c: number | undefined) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** Index just after the result array's `[`; -1: more bytes needed; -2: not an array result. */
function arrayStart(head: Buffer): number {
  const key = head.indexOf(KEY);
  if (key < 0) return -1;
  let i = key + KEY.length;
  while (isSpace(head[i])) i++;
  if (i >= head.length) return -1;
  if (head[i] !== 0x3a /* : */) return -2;
  i++;
  while (isSpace(head[i])) i++;
  if (i >= head.length) return -1;
  return head[i] === 0x5b /* [ */ ? i + 1 : -2;
}

export type ArrayStreamEnd =
  /** The array's contents went to the sink (without its brackets). */
  | { readonly kind: 'array'; readonly bytes: number }
  /** Not a plain array result: the whole body, to parse. */
  | { readonly kind: 'other'; readonly body: Buffer };

export interface ArrayExtractor {
  push(chunk: Buffer): void;
  /** Throws when the body looked like an array result but does not end as one. */
  end(): ArrayStreamEnd;
}

/** Feeds the contents of the body's result array (between its brackets) to `sink`, chunk by chunk. */
export function createArrayExtractor(sink: (bytes: Buffer) => void): ArrayExtractor {
  let mode: 'head' | 'array' | 'other' = 'head';
  let held: Buffer[] = [];
  let heldLength = 0;
  let prefix: Buffer = Buffer.alloc(0);
  let tail: Buffer = Buffer.alloc(0);
  let bytes = 0;

  const emit = (b: Buffer) => {
    if (b.length === 0) return;
    bytes += b.length;
    sink(b);
  };
  /** Passes everything but the last TAIL bytes on. */
  const feed = (b: Buffer) => {
    if (b.length >= TAIL) {
      emit(tail);
      emit(b.subarray(0, b.length - TAIL));
      tail = b.subarray(b.length - TAIL);
    } else {
      const joined = Buffer.concat([tail, b]);
      emit(joined.subarray(0, Math.max(0, joined.length - TAIL)));
      tail = joined.subarray(Math.max(0, joined.length - TAIL));
    }
  };

  return {
    push(chunk) {
      if (mode === 'array') return feed(chunk);
      held.push(chunk);
      heldLength += chunk.length;
      if (mode === 'other') return;
      const head = held.length === 1 ? chunk : Buffer.concat(held);
      held = [head];
      const start = arrayStart(head);
      if (start >= 0) {
        mode = 'array';
        prefix = Buffer.from(head.subarray(0, start));
        held = [];
        feed(head.subarray(start));
      } else if (start === -2 || heldLength > HEAD_MAX) {
        mode = 'other';
      }
    },
    end() {
      if (mode !== 'array') return { kind: 'other', body: Buffer.concat(held) };
      const close = tail.lastIndexOf(0x5d /* ] */);
      if (close < 0) throw new Error("the answer's result array does not end where the answer ends");
      emit(tail.subarray(0, close));
      let envelope: unknown;
      try {
        envelope = JSON.parse(`${prefix.toString('utf8')}]${tail.subarray(close + 1).toString('utf8')}`);
      } catch {
        envelope = null;
      }
      const e = envelope as { result?: unknown; error?: unknown } | null;
      if (!e || typeof e !== 'object' || Array.isArray(e) || e.error !== undefined || !Array.isArray(e.result) || e.result.length !== 0) {
        throw new Error('the answer is not a JSON-RPC result around its array');
      }
      return { kind: 'array', bytes };
    },
  };
}
