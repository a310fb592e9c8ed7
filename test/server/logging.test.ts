/**
 * What a real server logs, read from its log stream: link ids never appear
 * (link creation, download, a mistyped id, an error naming the link's file);
 * a client that leaves mid-download is one info line with no stack; a 4xx
 * logs no error; a 5xx logs the error and its stack, and the client gets
 * neither the stack nor the SQL.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEMO_START_BLOCKS } from '../../src/demo/generate.ts';
import { CLIENT_LEFT } from '../../src/server/logging.ts';
import { captureLogs, type LogCapture, type LogLine } from '../helpers/logCapture.ts';
import { createTestApp, type TestApp } from '../helpers/testApp.ts';

const ETH0 = DEMO_START_BLOCKS.ETH!;
const TRANSFERS = `/v1/evm/erc20/events/transfer?network=ETH&token=usdt&block_start=${ETH0}&block_end=${ETH0 + 3000}`;
const TRADES = '/v1/exchange/venue_a/raw_trades?token=BTC&since=2025-12-01T01:00:00Z&until=2025-12-01T02:00:00Z';

let t: TestApp;
let logs: LogCapture;
let base: string;

beforeAll(async () => {
  logs = captureLogs('debug');
  t = await createTestApp(undefined, { logger: logs.logger });
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
});

afterAll(async () => {
  await t.close();
});

const get = (url: string, headers: Record<string, string> = { 'x-api-key': t.key }) => fetch(`${base}${url}`, { headers });
/** The lines of one request, found by its `incoming request` line. */
const requestLines = (match: (url: string) => boolean): LogLine[] => {
  const incoming = logs.lines.find((l) => l.msg === 'incoming request' && match(String((l.req as { url: string }).url)));
  expect(incoming, 'the request was logged').toBeDefined();
  return logs.lines.filter((l) => l.reqId === incoming!.reqId);
};
const above = (lines: readonly LogLine[], level: number) => lines.filter((l) => l.level > level);

describe('link ids in the log', () => {
  it('never appear: not when a link is made, downloaded, mistyped, or named by an error', async () => {
    const created = await get(`${TRADES}&link=true`);
    expect(created.status).toBe(200);
    const { url } = (await created.json()) as { url: string };
    const id = url.split('/').at(-1)!;
    expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const downloaded = await fetch(url);
    expect(downloaded.status).toBe(200);
    await downloaded.arrayBuffer();
    const mistyped = await fetch(`${url.slice(0, -1)}${id.endsWith('A') ? 'B' : 'A'}?x=1`);
    expect(mistyped.status).toBe(404);
    // An error about the link's file, as the filesystem or the object store words it.
    t.app.log.error({ err: new Error(`ENOENT: no such file or directory, open '/data/links/.tmp-${id}.csv'`) }, 'link write failed');

    await logs.waitFor((l) => l.msg === 'request completed' && (l.res as { statusCode: number }).statusCode === 404);
    const downloadLines = requestLines((u) => u.startsWith('/v1/links/'));
    expect(downloadLines.find((l) => l.msg === 'incoming request')!.req).toMatchObject({ url: '/v1/links/[redacted]' });
    expect(logs.text()).toContain('/data/links/.tmp-[redacted].csv');
    expect(logs.text()).not.toContain(id);
    expect(logs.text()).not.toContain(id.slice(0, 20));
  });
});

describe('log levels', () => {
  it('a client that leaves mid-download is one info line, without a stack', async () => {
    const before = logs.lines.length;
    await new Promise<void>((resolve, reject) => {
      const req = http.get(`${base}${TRANSFERS}&format=json`, { headers: { 'x-api-key': t.key } }, (res) => {
        res.once('data', () => {
          req.destroy();
          resolve();
        });
      });
      req.on('error', (e) => (req.destroyed ? resolve() : reject(e)));
    });
    const left = await logs.waitFor((l) => l.msg === CLIENT_LEFT && logs.lines.indexOf(l) >= before);
    expect(left.level).toBe(30);
    const lines = logs.lines.filter((l) => l.reqId === left.reqId);
    expect(lines.filter((l) => l.msg === CLIENT_LEFT)).toHaveLength(1);
    expect(above(lines, 30)).toEqual([]);
    expect(JSON.stringify(lines)).not.toMatch(/stack|"err"/);
  });

  it('a client that leaves before the first byte, at any moment, is never an error', async () => {
    const before = logs.lines.length;
    const delays = [0, 2, 5, 10, 15, 20, 30, 50];
    for (const delay of delays) {
      await new Promise<void>((resolve) => {
        const req = http.get(`${base}${TRANSFERS}&format=json&verbose=true`, { headers: { 'x-api-key': t.key } }, (res) => {
          res.once('data', () => {
            req.destroy();
            resolve();
          });
        });
        setTimeout(() => {
          req.destroy();
          resolve();
        }, delay);
        req.on('error', () => resolve());
      });
    }
    // Every request that reached the server ends in exactly one line saying how.
    // Time for a second end line to be written, then until each request has its end (later on a loaded machine).
    await new Promise((r) => setTimeout(r, 500));
    const mine = await vi.waitFor(
      () => {
        const mine = logs.lines.slice(before);
        const ids = new Set(mine.filter((l) => l.msg === 'incoming request').map((l) => l.reqId));
        for (const id of ids) {
          const ends = mine.filter((l) => l.reqId === id && (l.msg === CLIENT_LEFT || l.msg === 'request completed'));
          expect(ends, `request ${id}`).toHaveLength(1);
        }
        return mine;
      },
      { timeout: 10_000, interval: 50 },
    );
    expect(above(mine, 30)).toEqual([]);
  });

  it('a 400, a 401 and a 404 log no error', async () => {
    expect((await get(`${TRANSFERS}&colour=red`)).status).toBe(400);
    expect((await get(TRANSFERS, {})).status).toBe(401);
    expect((await get('/v1/nowhere')).status).toBe(404);
    for (const match of [(u: string) => u.includes('colour=red'), (u: string) => u === TRANSFERS, (u: string) => u === '/v1/nowhere']) {
      await logs.waitFor((l) => l.msg === 'request completed' && l.reqId === requestLines(match)[0]!.reqId);
      const lines = requestLines(match);
      expect(above(lines, 30)).toEqual([]);
      expect(lines.some((l) => 'err' in l)).toBe(false);
    }
  });
});

describe('a 5xx', () => {
  let broken: TestApp;
  let brokenLogs: LogCapture;
  beforeAll(async () => {
    brokenLogs = captureLogs('info');
    broken = await createTestApp(null, { logger: brokenLogs.logger });
    // The engine failing under the server: every query errors.
    await broken.store.close();
  });
  afterAll(async () => {
    await broken.app.close();
  });

  it('is logged as an error with its stack; the client gets neither stack nor SQL', async () => {
    const res = await broken.get(TRANSFERS);
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ status: 'error', error: 'internal error; the request was not charged', code: 'internal_error' });
    const line = await brokenLogs.waitFor((l) => l.msg === 'internal error');
    expect(line.level).toBe(50);
    const err = line.err as { message: string; stack: string };
    expect(err.stack).toContain(err.message);
    expect(res.body).not.toContain(err.message);
  });
});
