/** A real pino logger writing into memory, so that a test can read what a server logged. */
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';

export type LogLine = Record<string, unknown> & { level: number; msg?: string; reqId?: string };

export interface LogCapture {
  readonly logger: Logger;
  readonly lines: LogLine[];
  /** Every line as written, for "never appears" checks. */
  text(): string;
  /** Resolves with the first line `match` accepts, polling until `timeoutMs`. */
  waitFor(match: (l: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
}

export function captureLogs(level = 'debug'): LogCapture {
  const raw: string[] = [];
  const lines: LogLine[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const l of chunk.toString().split('\n')) {
        if (!l) continue;
        raw.push(l);
        lines.push(JSON.parse(l) as LogLine);
      }
      cb();
    },
  });
  return {
    logger: pino({ level }, stream),
    lines,
    text: () => raw.join('\n'),
    async waitFor(match, timeoutMs = 10_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const hit = lines.find(match);
        if (hit) return hit;
        if (Date.now() > until) throw new Error(`no matching log line within ${timeoutMs} ms; got:\n${raw.slice(-20).join('\n')}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
  };
}
