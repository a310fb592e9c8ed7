/**
 * TEST INFRASTRUCTURE, not part of chainq: an HTTP front over chDB that stands
 * in for a ClickHouse server, for tests that need several processes (API
 * servers, ingestion writers, operator commands) sharing one ClickHouse. No
 * ClickHouse server can be installed on the test machines, and chDB (ClickHouse
 * in process) binds one data directory per process: one process holds it here
 * and answers the others over ClickHouse's HTTP interface.
 *
 * It speaks the part of that interface `@clickhouse/client` 1.23 uses:
 * - `GET /ping` answers `Ok.`; `GET|POST /` runs a statement;
 * - the statement is the `query` URL parameter, the POST body, or both (the
 *   body follows the URL's text after a line feed); `INSERT … FORMAT F` in the
 *   URL takes the body as its data;
 * - `param_<name>` values fill `{name:Type}` placeholders: the engine binds
 *   them, parsing each in ClickHouse's escaped text form as a server does
 *   (never spliced into the SQL text);
 * - `database` (the current database), `default_format` (the output format
 *   when the statement names none; TabSeparated otherwise), `query_id`;
 *   every other URL parameter is a setting for this request only (set before,
 *   reset after it), except the HTTP-layer ones a server handles itself
 *   (`wait_end_of_query`, progress headers, compression), which are accepted
 *   and ignored;
 * - credentials from `Authorization: Basic`, `X-ClickHouse-User`/`-Key` or the
 *   `user`/`password` parameters, checked against the configured user;
 * - answers carry `X-ClickHouse-Query-Id`, `X-ClickHouse-Format`,
 *   `X-ClickHouse-Timezone` and `X-ClickHouse-Summary` (which the client
 *   parses);
 * - errors as a server sends them: status 500 (401 for authentication), body
 *   `Code: N. DB::Exception: … (NAME) (version …)`, header
 *   `X-ClickHouse-Exception-Code`, so that the client raises a ClickHouseError.
 *
 * Where it differs from a server, on purpose: statements run one at a time
 * through one chDB session; request bodies and results are buffered whole (a
 * server streams both), so a result starts only when the statement ended; no
 * HTTP compression (a compressed request body is refused, answers are never
 * compressed), multipart parameters or sessions (`session_id`), both refused
 * with an error; several statements separated by `;` are not refused as a
 * server refuses them; every engine error is answered 500, where a server
 * answers some with 400 or 404 (the client raises the same error).
 *
 * chDB's public `queryBind` takes JS values and escapes strings itself; the
 * client sends values already in ClickHouse's escaped form. The front hands
 * those texts to the engine unchanged through the native calls the chdb
 * package's own Session methods make (`QueryAsyncConnection`,
 * `InsertRawAsyncConnection`), so a value is parsed exactly once, by the
 * engine, as a server parses it.
 */
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Session } from 'chdb';
import { spawnListening } from './listening.ts';

export interface ClickHouseHttpFrontOptions {
  /** chDB's data directory; the front is its only user while it runs. */
  readonly dir: string;
  readonly username?: string;
  readonly password?: string;
  /** 0 (the default): any free port on 127.0.0.1. */
  readonly port?: number;
  /** Called with one line per statement (milliseconds, rows, the statement's start), to see what a test sends. */
  readonly log?: (line: string) => void;
}

export interface ClickHouseHttpFront {
  /** `http://127.0.0.1:PORT` */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

interface NativeQueryResult {
  readonly bytes: Uint8Array;
  readonly elapsed: number;
  readonly rowsRead: number;
  readonly bytesRead: number;
}

interface NativeInsertResult {
  readonly elapsed: number;
  readonly rowsWritten: number;
  readonly bytesWritten: number;
}

interface ChdbNative {
  QueryAsyncConnection(connection: unknown, sql: string, format: string, params?: Readonly<Record<string, string>>): Promise<NativeQueryResult>;
  InsertRawAsyncConnection(connection: unknown, prefix: string, data: Buffer, countLines: boolean): Promise<NativeInsertResult>;
}

function isChdbNative(v: unknown): v is ChdbNative {
  const n = v as Partial<Record<keyof ChdbNative, unknown>> | null;
  return typeof n?.QueryAsyncConnection === 'function' && typeof n.InsertRawAsyncConnection === 'function';
}

/** The chdb package's native addon, as its Session loads it (the same module instance). */
function loadNative(): ChdbNative {
  const require = createRequire(import.meta.url);
  const root = path.dirname(require.resolve('chdb/package.json'));
  const loader = require(path.join(root, 'dist', 'loader.js')) as { loadNative(): unknown };
  const native = loader.loadNative();
  if (!isChdbNative(native)) throw new Error('the chdb native addon has no QueryAsyncConnection/InsertRawAsyncConnection: this front needs chdb 3.4');
  return native;
}

/** An error in ClickHouse's own shape: its code, its name, the HTTP status a server answers with. */
class ClickHouseHttpError extends Error {
  constructor(
    readonly code: number,
    readonly type: string,
    message: string,
    readonly status = 500,
  ) {
    super(message);
  }
}

/** URL parameters that are not settings: the HTTP interface's own. */
const HTTP_PARAMETERS = new Set([
  'query',
  'database',
  'default_format',
  'query_id',
  'user',
  'password',
  'quota_key',
  'role',
  'session_id',
  'session_timeout',
  'session_check',
  'compress',
  'decompress',
  'buffer_size',
  'wait_end_of_query',
]);

/** Settings of the HTTP layer: a server applies them to the response; here they change nothing (no compression, no progress headers). */
const HTTP_LAYER_SETTINGS = new Set([
  'send_progress_in_http_headers',
  'http_headers_progress_interval_ms',
  'enable_http_compression',
  'http_zlib_compression_level',
  'http_response_buffer_size',
  'http_wait_end_of_query',
  'http_native_compression_disable_checksumming_on_decompress',
  'cancel_http_readonly_queries_on_client_close',
]);

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const INSERT_WITH_FORMAT = /^\s*INSERT\s+INTO\s[\s\S]*\sFORMAT\s+[A-Za-z0-9_]+\s*$/i;
const TRAILING_FORMAT = /\sFORMAT\s+([A-Za-z0-9_]+)\s*;?\s*$/i;

/** A quoted string literal: backslash escapes, as ClickHouse reads them. */
const quote = (text: string): string => `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
const quoteName = (name: string): string => `\`${name.replaceAll('\\', '\\\\').replaceAll('`', '\\`')}\``;

interface Statement {
  readonly queryId: string;
  readonly database: string | null;
  readonly settings: ReadonlyMap<string, string>;
  readonly params: Readonly<Record<string, string>>;
  readonly defaultFormat: string;
  /** An INSERT whose data is the body (handed over as bytes), or any statement as text. */
  readonly run: { readonly kind: 'insert'; readonly prefix: string; readonly data: Buffer } | { readonly kind: 'sql'; readonly sql: string };
}

interface Answer {
  readonly body: Buffer;
  readonly format: string;
  readonly summary: Readonly<Record<string, string>>;
}

function parseStatement(url: URL, body: Buffer): Statement {
  const q = url.searchParams;
  const settings = new Map<string, string>();
  const params: Record<string, string> = {};
  for (const [k, v] of q) {
    if (k.startsWith('param_')) params[k.slice('param_'.length)] = v;
    else if (HTTP_PARAMETERS.has(k) || HTTP_LAYER_SETTINGS.has(k)) continue;
    else if (!NAME.test(k)) throw new ClickHouseHttpError(115, 'UNKNOWN_SETTING', `Unknown setting '${k}'`);
    else settings.set(k, v);
  }
  if (q.get('session_id')) throw new ClickHouseHttpError(48, 'NOT_IMPLEMENTED', 'the test front has no HTTP sessions (session_id)');
  const urlQuery = q.get('query') ?? '';
  const hasParams = Object.keys(params).length > 0;
  const base = {
    queryId: q.get('query_id') || randomUUID(),
    database: q.get('database') || null,
    settings,
    params,
    defaultFormat: q.get('default_format') || 'TabSeparated',
  };
  if (!hasParams && INSERT_WITH_FORMAT.test(urlQuery)) return { ...base, run: { kind: 'insert', prefix: urlQuery.trim(), data: body } };
  const sql = [urlQuery, body.toString('utf8')].filter((t) => t.trim() !== '').join('\n');
  if (sql.trim() === '') throw new ClickHouseHttpError(62, 'SYNTAX_ERROR', 'Empty query');
  return { ...base, run: { kind: 'sql', sql } };
}

function credentials(req: http.IncomingMessage, url: URL): { user: string; password: string } {
  const auth = req.headers.authorization;
  if (auth?.startsWith('Basic ')) {
    const text = Buffer.from(auth.slice(6), 'base64').toString('utf8');
    const colon = text.indexOf(':');
    return colon < 0 ? { user: text, password: '' } : { user: text.slice(0, colon), password: text.slice(colon + 1) };
  }
  const header = (name: string) => {
    const v = req.headers[name];
    return typeof v === 'string' ? v : undefined;
  };
  return {
    user: header('x-clickhouse-user') ?? url.searchParams.get('user') ?? 'default',
    password: header('x-clickhouse-key') ?? url.searchParams.get('password') ?? '',
  };
}

async function readBody(req: http.IncomingMessage): Promise<Buffer> {
  const encoding = req.headers['content-encoding'];
  if (encoding && encoding !== 'identity') throw new ClickHouseHttpError(48, 'NOT_IMPLEMENTED', `the test front does not decompress request bodies (Content-Encoding: ${encoding})`);
  if (String(req.headers['content-type'] ?? '').startsWith('multipart/')) throw new ClickHouseHttpError(48, 'NOT_IMPLEMENTED', 'the test front does not read multipart parameters');
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** The engine's error as ClickHouse words it; anything else as a std::exception. */
function asClickHouseError(e: unknown): ClickHouseHttpError {
  if (e instanceof ClickHouseHttpError) return e;
  const message = e instanceof Error ? e.message : String(e);
  const m = /^Code: (\d+)\. DB::Exception: ([\s\S]*?)\s*(?:\(([A-Z0-9_]+)\))?\s*$/.exec(message);
  if (m) return new ClickHouseHttpError(Number(m[1]), m[3] ?? 'UNKNOWN_EXCEPTION', m[2]!.replace(/\.$/, ''));
  return new ClickHouseHttpError(1001, 'STD_EXCEPTION', message);
}

function contentType(format: string): string {
  if (/^(TSV|TabSeparated)/i.test(format)) return 'text/tab-separated-values; charset=UTF-8';
  if (/^CSV/i.test(format)) return 'text/csv; charset=UTF-8';
  if (/EachRow$/i.test(format)) return 'application/x-ndjson; charset=UTF-8';
  if (/^JSON/i.test(format)) return 'application/json; charset=UTF-8';
  if (/^(Parquet|Arrow|Native|RowBinary|ORC|Avro)/i.test(format)) return 'application/octet-stream';
  return 'text/plain; charset=UTF-8';
}

const ns = (seconds: number): string => String(Math.max(0, Math.round(seconds * 1e9)));

export async function startClickHouseHttpFront(opts: ClickHouseHttpFrontOptions): Promise<ClickHouseHttpFront> {
  const native = loadNative();
  const session = new Session(opts.dir);
  const username = opts.username ?? 'default';
  const password = opts.password ?? '';
  const run = (sql: string, format = 'TabSeparated', params?: Readonly<Record<string, string>>) =>
    params && Object.keys(params).length > 0 ? native.QueryAsyncConnection(session.connection, sql, format, params) : native.QueryAsyncConnection(session.connection, sql, format);
  const text = async (sql: string) =>
    Buffer.from((await run(sql)).bytes)
      .toString('utf8')
      .trim();
  const version = await text('SELECT version()');
  const timezone = await text('SELECT timezone()');

  // One statement at a time: chDB's session has one current database and one set of settings.
  let tail: Promise<unknown> = Promise.resolve();
  const serially = <T>(fn: () => Promise<T>): Promise<T> => {
    const next = tail.then(fn, fn);
    tail = next.catch(() => undefined);
    return next;
  };

  async function execute(st: Statement): Promise<Answer> {
    // A server gives each request a context of its own: this request's database and settings are set here and undone after it.
    const context: string[] = [];
    if (st.database) context.push(`USE ${quoteName(st.database)}`);
    if (st.settings.size) context.push(`SET ${[...st.settings].map(([k, v]) => `${k} = ${quote(v)}`).join(', ')}`);
    try {
      if (context.length) await run(context.join('; '));
      if (st.run.kind === 'insert') {
        if (st.run.data.length === 0) return { body: Buffer.alloc(0), format: st.defaultFormat, summary: summary({ elapsed: 0 }) };
        const r = await native.InsertRawAsyncConnection(session.connection, st.run.prefix, st.run.data, false);
        return { body: Buffer.alloc(0), format: st.defaultFormat, summary: summary({ written: r.rowsWritten, writtenBytes: r.bytesWritten, elapsed: r.elapsed }) };
      }
      const isInsert = /^\s*INSERT\s/i.test(st.run.sql);
      const format = (!isInsert && TRAILING_FORMAT.exec(st.run.sql)?.[1]) || st.defaultFormat;
      const r = await run(st.run.sql, st.defaultFormat, st.params);
      const body = Buffer.from(r.bytes.buffer, r.bytes.byteOffset, r.bytes.byteLength);
      return { body, format, summary: summary({ read: r.rowsRead, readBytes: r.bytesRead, result: r.rowsRead, resultBytes: body.length, elapsed: r.elapsed }) };
    } finally {
      const reset: string[] = [];
      if (st.database) reset.push('USE default');
      if (st.settings.size) reset.push(`SET ${[...st.settings.keys()].map((k) => `${k} = DEFAULT`).join(', ')}`);
      if (reset.length) await run(reset.join('; ')).catch(() => undefined);
    }
  }

  function summary(s: { read?: number; readBytes?: number; written?: number; writtenBytes?: number; result?: number; resultBytes?: number; elapsed: number }): Record<string, string> {
    return {
      read_rows: String(s.read ?? s.written ?? 0),
      read_bytes: String(s.readBytes ?? s.writtenBytes ?? 0),
      written_rows: String(s.written ?? 0),
      written_bytes: String(s.writtenBytes ?? 0),
      total_rows_to_read: String(s.read ?? 0),
      result_rows: String(s.result ?? 0),
      result_bytes: String(s.resultBytes ?? 0),
      elapsed_ns: ns(s.elapsed),
    };
  }

  function fail(res: http.ServerResponse, queryId: string, e: unknown): void {
    const err = asClickHouseError(e);
    if (res.headersSent) {
      res.destroy();
      return;
    }
    res.writeHead(err.status, {
      'content-type': 'text/plain; charset=UTF-8',
      'x-clickhouse-query-id': queryId,
      'x-clickhouse-timezone': timezone,
      'x-clickhouse-exception-code': String(err.code),
    });
    res.end(`Code: ${err.code}. DB::Exception: ${err.message}. (${err.type}) (version ${version})\n`);
  }

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://front');
    const queryId = url.searchParams.get('query_id') || randomUUID();
    res.on('error', () => undefined);
    void (async () => {
      if (url.pathname === '/ping') {
        res.writeHead(200, { 'content-type': 'text/html; charset=UTF-8' }).end('Ok.\n');
        return;
      }
      if (url.pathname !== '/') throw new ClickHouseHttpError(0, 'UNKNOWN_EXCEPTION', `There is no handle ${url.pathname}`, 404);
      if (req.method !== 'GET' && req.method !== 'POST') throw new ClickHouseHttpError(0, 'UNKNOWN_EXCEPTION', `method ${req.method} is not allowed`, 405);
      const who = credentials(req, url);
      if (who.user !== username || who.password !== password) {
        throw new ClickHouseHttpError(516, 'AUTHENTICATION_FAILED', `${who.user}: Authentication failed: password is incorrect, or there is no user with such name`, 401);
      }
      const st = parseStatement(url, await readBody(req));
      const answer = await serially(async () => {
        const t0 = performance.now();
        try {
          return await execute(st);
        } finally {
          opts.log?.(`${(performance.now() - t0).toFixed(1)} ms  ${(st.run.kind === 'insert' ? `${st.run.prefix} [${st.run.data.length} bytes]` : st.run.sql).replace(/\s+/g, ' ').slice(0, 160)}`);
        }
      });
      res.writeHead(200, {
        'content-type': contentType(answer.format),
        'content-length': answer.body.length,
        'x-clickhouse-query-id': st.queryId,
        'x-clickhouse-format': answer.format,
        'x-clickhouse-timezone': timezone,
        'x-clickhouse-summary': JSON.stringify(answer.summary),
      });
      res.end(answer.body);
    })().catch((e: unknown) => fail(res, queryId, e));
  });
  server.keepAliveTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | null = null;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      (closing ??= (async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
        await tail;
        session.close();
      })()),
  };
}

/** The front in a child process of its own (holding chDB there), as tests with several chainq processes need. */
export interface ClickHouseHttpFrontProcess {
  readonly url: string;
  readonly port: number;
  readonly proc: ChildProcess;
  /** `clickhouse://user:password@127.0.0.1:PORT/database`, as chainq's `--store` takes it. */
  storeUrl(database: string): string;
  output(): string;
  stop(): Promise<void>;
}

export async function spawnClickHouseHttpFront(opts: ClickHouseHttpFrontOptions): Promise<ClickHouseHttpFrontProcess> {
  const main = path.join(import.meta.dirname, 'clickhouseHttpFront.main.ts');
  const args = ['--import', 'tsx', main, '--dir', opts.dir, '--user', opts.username ?? 'default', '--password', opts.password ?? '', '--port', String(opts.port ?? 0)];
  const { url, proc, output, stop } = await spawnListening('the ClickHouse HTTP front', args);
  const port = Number(new URL(url).port);
  return {
    url,
    port,
    proc,
    storeUrl: (database) => `clickhouse://${encodeURIComponent(opts.username ?? 'default')}:${encodeURIComponent(opts.password ?? '')}@127.0.0.1:${port}/${database}`,
    output,
    stop: () => stop(),
  };
}
