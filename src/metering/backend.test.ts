/**
 * The contract both backends keep, checked against each of them: the real
 * DuckDB store (and chDB, whose ledger differs, for charges kept across a
 * restart) and a real redis-server.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClickHouseStore } from '../../test/helpers/clickhouseStore.ts';
import { createStore } from '../store/openStore.ts';
import type { Store } from '../store/types.ts';
import type { MeterBackend, Reservation } from './backend.ts';
import { createEmbeddedBackend } from './embeddedBackend.ts';
import { createMeter } from './meter.ts';
import { parsePlans } from './plans.ts';
import { createRedisBackend, HOLD_TTL_MS } from './redisBackend.ts';
import { startRedis, type RedisServer } from '../../test/helpers/redis.ts';

let store: Store;
let redis: RedisServer;
beforeAll(async () => {
  store = await createStore({ dataDir: null, threads: 2 });
  redis = await startRedis();
});
afterAll(async () => {
  await store?.close();
  await redis?.stop();
});

const T = Date.parse('2025-12-10T12:00:00Z');
let n = 0;
const hold = (keyId: string, cost: number, at = T): Reservation => ({ id: `r${++n}`, keyId, period: '2025-12', cost, at });
const balance = (b: MeterBackend, keyId: string, now = T) => b.admit({ keyId, window: 0, period: '2025-12', now, countRequest: false });

const backends: [string, () => Promise<MeterBackend>][] = [
  ['embedded', async () => createEmbeddedBackend(store)],
  ['redis', () => createRedisBackend({ url: redis.url, prefix: `t${Date.now()}` })],
];

describe.each(backends)('%s backend', (_name, make) => {
  let b: MeterBackend;
  beforeAll(async () => {
    b = await make();
  });
  afterAll(async () => b?.close());

  it('counts requests per key and window', async () => {
    const count = (keyId: string, window: number) => b.admit({ keyId, window, period: '2025-12', now: T, countRequest: true }).then((r) => r.count);
    expect(await count('w1', 100)).toBe(1);
    expect(await count('w1', 100)).toBe(2);
    expect(await count('w2', 100)).toBe(1);
    expect(await count('w1', 101)).toBe(1);
  });

  it('holds atomically: 50 concurrent holds of 100 against 750 → exactly 7', async () => {
    const results = await Promise.all(Array.from({ length: 50 }, () => b.reserve(hold('race', 100), 750)));
    expect(results.filter((r) => r.ok)).toHaveLength(7);
    expect(await balance(b, 'race')).toMatchObject({ used: 0, reserved: 700 });
  });

  it('a commit charges, a release gives back; neither happens twice', async () => {
    const m = createMeter({ backend: b, plans: parsePlans('{"plans": {"p": {"requests_per_minute": null, "monthly_blocks": 1000}}}'), clock: () => T });
    const a = await m.admit({ id: 'once', plan: 'p' });
    expect(await m.reserve(a, 300)).toBe(true);
    await m.commit(a);
    await m.commit(a);
    await m.release(a);
    const c = await m.admit({ id: 'once', plan: 'p' });
    expect(await m.reserve(c, 200)).toBe(true);
    await m.release(c);
    await m.release(c);
    await m.commit(c);
    expect(await balance(b, 'once')).toMatchObject({ used: 300, reserved: 0 });
    expect(await b.usage({ keyId: 'once' })).toEqual([{ keyId: 'once', period: '2025-12', requests: 1, blocks: 300 }]);
  });

  it('charges a replayable id once, however often it is held and committed again, at once or one after another', async () => {
    const r: Reservation = { ...hold('replay', 300), replayable: true };
    for (let i = 0; i < 3; i++) {
      expect((await b.reserve(r, null)).ok).toBe(true);
      await b.commit(r);
    }
    await Promise.all(
      [0, 1, 2].map(async () => {
        await b.reserve(r, null);
        await b.commit(r);
      }),
    );
    expect(await balance(b, 'replay')).toMatchObject({ used: 300, reserved: 0 });
    expect(await b.usage({ keyId: 'replay' })).toEqual([{ keyId: 'replay', period: '2025-12', requests: 1, blocks: 300 }]);
  });

  it('no budget (null) admits any cost', async () => {
    expect((await b.reserve(hold('free', 1e12), null)).ok).toBe(true);
  });

  it('lists usage per key and month', async () => {
    const r = hold('months', 100);
    await b.reserve(r, null);
    await b.commit(r);
    const nov = { ...hold('months', 50), period: '2025-11' };
    await b.reserve(nov, null);
    await b.commit(nov);
    expect(await b.usage({ keyId: 'months' })).toEqual([
      { keyId: 'months', period: '2025-11', requests: 1, blocks: 50 },
      { keyId: 'months', period: '2025-12', requests: 1, blocks: 100 },
    ]);
    expect(await b.usage({ keyId: 'months', period: '2025-11' })).toHaveLength(1);
  });

  it('lists no usage row for a month where the key only held and released', async () => {
    const charged = hold('released', 30);
    await b.reserve(charged, null);
    await b.commit(charged);
    const released = { ...hold('released', 40), period: '2025-10' };
    await b.reserve(released, null);
    await b.release(released);
    expect(await b.usage({ keyId: 'released' })).toEqual([{ keyId: 'released', period: '2025-12', requests: 1, blocks: 30 }]);
  });
});

describe('redis backend: holds of a process that died', () => {
  let b: MeterBackend;
  beforeAll(async () => {
    b = await createRedisBackend({ url: redis.url, prefix: 'dead' });
  });
  afterAll(async () => b?.close());

  it('expire after the hold TTL and give their budget back', async () => {
    const r = hold('k', 600);
    expect((await b.reserve(r, 1000)).ok).toBe(true);
    expect((await b.reserve(hold('k', 600), 1000)).ok).toBe(false);
    const later = T + HOLD_TTL_MS + 1;
    expect(await balance(b, 'k', later)).toMatchObject({ reserved: 0 });
    expect((await b.reserve(hold('k', 600, later), 1000)).ok).toBe(true);
  });

  it('an expired hold whose request still completes is charged once, and a retried commit is not charged again', async () => {
    const r = hold('late', 100);
    await b.reserve(r, null);
    await balance(b, 'late', T + HOLD_TTL_MS + 1);
    await b.commit(r);
    await b.commit(r);
    expect(await balance(b, 'late', T + HOLD_TTL_MS + 2)).toMatchObject({ used: 100, reserved: 0 });
  });

  it('rejects a URL it cannot reach with a clear message', async () => {
    await expect(createRedisBackend({ url: 'redis://127.0.0.1:1' })).rejects.toThrow(/cannot reach Redis at redis:\/\/127\.0\.0\.1:1/);
  });
});

/**
 * A server that dies after an export partition's charge was made durable and
 * before the partition was recorded charges it again when the export resumes,
 * in another process, maybe in another month: each backend charges it once.
 */
describe('a replayable charge committed again after a restart', () => {
  const dirs: string[] = [];
  const newDir = () => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-replay-'));
    dirs.push(d);
    return d;
  };
  afterAll(() => {
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  /** Opens the backend of one server's life; `close` ends that life. */
  type Life = () => Promise<{ backend: MeterBackend; close(): Promise<void> }>;
  const embeddedOn =
    (open: () => Promise<Store>): Life =>
    async () => {
      const s = await open();
      const backend = createEmbeddedBackend(s);
      return {
        backend,
        async close() {
          await backend.close();
          await s.close();
        },
      };
    };
  const duckDir = newDir();
  const chdbDir = newDir();
  const prefix = `restart${Date.now()}`;
  const lives: [string, Life][] = [
    ['embedded on DuckDB', embeddedOn(() => createStore({ dataDir: duckDir, threads: 1 }))],
    ['embedded on chDB', embeddedOn(() => createClickHouseStore({ target: { engine: 'chdb', dir: chdbDir }, database: 'replay' }))],
    [
      'redis',
      async () => {
        const backend = await createRedisBackend({ url: redis.url, prefix });
        return { backend, close: () => backend.close() };
      },
    ],
  ];

  it.each(lives)('%s: the quota moves once, in the month of the first charge', async (_name, open) => {
    const r: Reservation = { id: 'exp_replay-3', keyId: 'exporter', period: '2025-12', cost: 700, at: T, endpoint: '/v1/exports', replayable: true };
    const first = await open();
    await first.backend.reserve(r, null);
    await first.backend.commit(r);
    await first.close();

    // The resumed export charges the partition again, in the next month.
    const again: Reservation = { ...r, period: '2026-01', at: Date.parse('2026-01-02T00:00:00Z') };
    const second = await open();
    try {
      expect((await second.backend.reserve(again, 1000)).ok).toBe(true);
      await second.backend.commit(again);
      // Twice in that life too.
      await second.backend.reserve(again, null);
      await second.backend.commit(again);
      const now = again.at;
      expect(await second.backend.admit({ keyId: 'exporter', window: 0, period: '2026-01', now, countRequest: false })).toMatchObject({ used: 0, reserved: 0 });
      expect(await second.backend.admit({ keyId: 'exporter', window: 0, period: '2025-12', now, countRequest: false })).toMatchObject({ used: 700, reserved: 0 });
      expect(await second.backend.usage({ keyId: 'exporter', period: '2025-12' })).toEqual([{ keyId: 'exporter', period: '2025-12', requests: 1, blocks: 700 }]);
      expect((await second.backend.recentCharges('exporter', '2025-12', 10)).map((c) => c.requestId)).toEqual(['exp_replay-3']);
    } finally {
      await second.close();
    }
  });
});
