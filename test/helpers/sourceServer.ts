/**
 * A real HTTP server (node:http on a free port) standing in for a data
 * source: static files by path, JSON handlers for POST APIs, and scripted
 * failures (HTTP 500 / 429 for the first requests to a path) to exercise
 * retries. It records every request it answers.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Handler = (body: unknown, req: http.IncomingMessage) => unknown;

export interface Failure {
  /** Answers with this status… */
  readonly status: number;
  /** …this many times before answering normally. */
  times: number;
  readonly retryAfter?: string;
  /** Only for POST bodies matching this. */
  readonly match?: (body: unknown) => boolean;
}

export interface RequestRecord {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly body: unknown;
  readonly auth: string | undefined;
}

export interface SourceServer {
  readonly url: string;
  readonly files: Map<string, Buffer>;
  readonly handlers: Map<string, Handler>;
  readonly requests: RequestRecord[];
  /** Makes the next `times` requests to `path` fail with `status`. */
  fail(path: string, failure: Failure): void;
  /** Forgets files, handlers, scripted failures and the request log. */
  reset(): void;
  close(): Promise<void>;
}

export async function startSourceServer(): Promise<SourceServer> {
  const files = new Map<string, Buffer>();
  const handlers = new Map<string, Handler>();
  const failures = new Map<string, Failure[]>();
  const requests: RequestRecord[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown = raw;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        // not JSON: keep the text
      }
      const answer = (status: number, payload: Buffer | string, headers: Record<string, string> = {}) => {
        requests.push({ method: req.method ?? 'GET', path, status, body, auth: req.headers.authorization });
        res.writeHead(status, { 'content-length': String(Buffer.byteLength(payload)), ...headers });
        res.end(payload);
      };
      const pending = (failures.get(path) ?? []).find((f) => f.times > 0 && (!f.match || f.match(body)));
      if (pending) {
        pending.times--;
        answer(pending.status, pending.status === 429 ? 'Too Many Requests' : 'Internal Server Error', pending.retryAfter ? { 'retry-after': pending.retryAfter } : {});
        return;
      }
      const handler = handlers.get(path);
      if (handler) {
        try {
          const out = handler(body, req);
          if (out instanceof HttpAnswer) answer(out.status, out.body, { 'content-type': 'application/json' });
          else answer(200, JSON.stringify(out), { 'content-type': 'application/json' });
        } catch (e) {
          answer(500, JSON.stringify({ error: String(e) }));
        }
        return;
      }
      const file = files.get(path);
      if (file) answer(200, file, { 'content-type': 'application/octet-stream' });
      else answer(404, 'Not Found');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    files,
    handlers,
    requests,
    fail(path, failure) {
      const list = failures.get(path) ?? [];
      list.push({ ...failure });
      failures.set(path, list);
    },
    reset() {
      files.clear();
      handlers.clear();
      failures.clear();
      requests.length = 0;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A handler's non-200 answer with a JSON body (bitcoind's RPC errors are HTTP 500 + JSON). */
export class HttpAnswer {
  constructor(
    readonly status: number,
    readonly body: string,
  ) {}
}

/**
 * The node pool waits until a deadline set when the node failed, so the time
 * spent between the failure and the next request (long on a loaded machine)
 * shortens the wait it asks for: each wait is at most its step of `schedule`
 * and more than nothing, and there are as many as steps.
 */
export function expectWaitsUpTo(waits: readonly number[], schedule: readonly number[]): void {
  if (waits.length !== schedule.length || waits.some((w, i) => !(w > 0 && w <= schedule[i]!))) {
    throw new Error(`waits ${JSON.stringify(waits)} do not follow the schedule ${JSON.stringify(schedule)} (each > 0 and at most its step)`);
  }
}

/** A retry policy that records its waits instead of sleeping. */
export function recordingRetry(retries = 5, baseDelayMs = 100): { policy: { retries: number; baseDelayMs: number; maxDelayMs: number; sleep: (ms: number) => Promise<void> }; waits: number[] } {
  const waits: number[] = [];
  return {
    policy: {
      retries,
      baseDelayMs,
      maxDelayMs: 10_000,
      sleep: async (ms) => {
        waits.push(ms);
      },
    },
    waits,
  };
}
