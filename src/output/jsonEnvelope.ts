/**
 * Wraps the engine's newline-delimited JSON rows into the response envelope
 * `{"status":"success","events":[…],"count":N}` as bytes pass through: rows
 * are never parsed, and memory stays one chunk deep.
 */
import { Transform, type TransformCallback } from 'node:stream';

const NEWLINE = 0x0a;
const COMMA = 0x2c;
const HEAD = Buffer.from('{"status":"success","events":[');

export class JsonEnvelope extends Transform {
  /** `highWaterMark`: the rows' stream's own, so that the envelope holds no more than its source. */
  constructor(highWaterMark = 256 * 1024) {
    super({ highWaterMark });
  }

  #count = 0;
  #started = false;
  /** A row ended at the previous chunk's end; a separator is owed if another row follows. */
  #owesSeparator = false;

  get count(): number {
    return this.#count;
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    if (!this.#started) {
      this.push(HEAD);
      this.#started = true;
    }
    if (chunk.length === 0) {
      done();
      return;
    }
    if (this.#owesSeparator) this.push(Buffer.of(COMMA));
    this.#owesSeparator = false;
    let end = chunk.length;
    if (chunk[end - 1] === NEWLINE) {
      end--;
      this.#count++;
      this.#owesSeparator = true;
    }
    // The chunk is ours alone (read from the engine's pipe): rewrite it in place.
    const out = chunk.subarray(0, end);
    for (let i = out.indexOf(NEWLINE); i !== -1; i = out.indexOf(NEWLINE, i + 1)) {
      out[i] = COMMA;
      this.#count++;
    }
    if (out.length) this.push(out);
    done();
  }

  override _flush(done: TransformCallback): void {
    if (!this.#started) this.push(HEAD);
    this.push(tail(this.#count));
    done();
  }
}

const tail = (count: number): Buffer => Buffer.from(`],"count":${count}}`);

/** The same envelope around rows that are all there already: one buffer, the bytes JsonEnvelope streams. */
export function envelopeOf(rows: Buffer): Buffer {
  const end = rows.length > 0 && rows[rows.length - 1] === NEWLINE ? rows.length - 1 : rows.length;
  // Copied, not rewritten in place: the rows may be read elsewhere too.
  const out = Buffer.concat([HEAD, rows.subarray(0, end)]);
  let count = end < rows.length ? 1 : 0;
  for (let i = out.indexOf(NEWLINE, HEAD.length); i !== -1; i = out.indexOf(NEWLINE, i + 1)) {
    out[i] = COMMA;
    count++;
  }
  return Buffer.concat([out, tail(count)]);
}
