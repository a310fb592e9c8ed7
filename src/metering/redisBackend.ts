/**
 * The Redis backend: rate-limit windows and quota counters in Redis, changed
 * only by Lua scripts (atomic on the server), so that any number of chainq
 * processes enforce one limit per key.
 *
 * Keys, all tagged with the API key id so that one key's data sits in one
 * Redis Cluster slot:
 *   chainq:{<key>}:rl:<window>  request count of a one-minute window (expires after 2 min)
 *   chainq:{<key>}:q:<YYYY-MM>  hash: used (blocks charged), reserved (blocks held), requests (charged requests)
 *   chainq:{<key>}:h:<YYYY-MM>  hash: hold id -> cost, for requests still streaming
 *   chainq:{<key>}:z:<YYYY-MM>  sorted set: hold id -> expiry (epoch ms)
 *   chainq:{<key>}:x:<YYYY-MM>  hash: expired hold id -> cost, still chargeable if its request completes
 *   chainq:{<key>}:c:<YYYY-MM>  list: the latest RECENT_CHARGES_KEPT charges, newest first, as JSON (GET /v1/usage)
 *   chainq:{<key>}:once         sorted set: replayable charge id (an export partition's) -> when it was charged (epoch ms)
 * A hold whose process died is reaped when it expires (HOLD_TTL_MS). The
 * month's keys expire after PERIOD_TTL_S so that usage history stays bounded.
 * Commit and release are idempotent: a retried script never charges twice,
 * since a commit charges only a hold it finds and removes it. That alone does
 * not cover an export partition charged again after a restart, which holds
 * its id anew: replayable ids are kept in `once` for PERIOD_TTL_S (longer
 * than any export waits to resume), whatever month they were charged in, and
 * a commit of one found there only drops its hold.
 */
import type { Redis as RedisClient } from 'ioredis';
import { RECENT_CHARGES_KEPT, type AdmitInput, type AdmitResult, type ChargeRecord, type MeterBackend, type Reservation, type ReserveResult, type UsageRow } from './backend.ts';
import { WINDOW_MS } from './period.ts';
import { messageOf } from '../utils/errorText.ts';
import { compileSchema, parseWith } from '../utils/jsonSchema.ts';

export const HOLD_TTL_MS = 60 * 60 * 1000;
export const PERIOD_TTL_S = 400 * 86_400;
const DEFAULT_PREFIX = 'chainq';

const REAP = `
local function reap(q, h, z, x, now)
  local expired = redis.call('ZRANGEBYSCORE', z, '-inf', now)
  for _, id in ipairs(expired) do
    local c = redis.call('HGET', h, id)
    if c then
      redis.call('HDEL', h, id)
      redis.call('HINCRBY', q, 'reserved', -tonumber(c))
      redis.call('HSET', x, id, c)
      redis.call('EXPIRE', x, tonumber(ARGV[#ARGV]))
    end
  end
  if #expired > 0 then redis.call('ZREMRANGEBYSCORE', z, '-inf', now) end
end
local function balance(q)
  local v = redis.call('HMGET', q, 'used', 'reserved')
  return tonumber(v[1] or '0'), tonumber(v[2] or '0')
end
`;

// KEYS: rl q h z x · ARGV: count(0|1) windowTtlMs now periodTtl
const validateScriptAnswer = compileSchema<readonly [number | string, number | string, number | string]>({
  type: 'array',
  minItems: 3,
  maxItems: 3,
  items: { type: ['number', 'string'] },
});

const ADMIT = `${REAP}
local count = 0
if ARGV[1] == '1' then
  count = redis.call('INCR', KEYS[1])
  if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
end
reap(KEYS[2], KEYS[3], KEYS[4], KEYS[5], tonumber(ARGV[3]))
local used, reserved = balance(KEYS[2])
return {count, used, reserved}
`;

// KEYS: q h z x · ARGV: id cost budget(-1: none) now holdTtlMs periodTtl
// An id holds once: holding it again (a replayable charge's, held anew) takes nothing more, so one commit or release ends it.
const RESERVE = `${REAP}
reap(KEYS[1], KEYS[2], KEYS[3], KEYS[4], tonumber(ARGV[4]))
local used, reserved = balance(KEYS[1])
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then return {1, used, reserved} end
local cost = tonumber(ARGV[2])
local budget = tonumber(ARGV[3])
if budget >= 0 and used + reserved + cost > budget then return {0, used, reserved} end
redis.call('HINCRBY', KEYS[1], 'reserved', cost)
redis.call('HSET', KEYS[2], ARGV[1], cost)
redis.call('ZADD', KEYS[3], tonumber(ARGV[4]) + tonumber(ARGV[5]), ARGV[1])
local ttl = tonumber(ARGV[6])
redis.call('EXPIRE', KEYS[1], ttl)
redis.call('EXPIRE', KEYS[2], ttl)
redis.call('EXPIRE', KEYS[3], ttl)
return {1, used, reserved + cost}
`;

// KEYS: q h z x c once · ARGV: id cost chargeJson kept periodTtl replayable(0|1) now
// Charges only a hold that is live or expired-but-unsettled, and a replayable id only once.
const COMMIT = `
local cost = tonumber(ARGV[2])
local replayable = ARGV[6] == '1'
if replayable and redis.call('ZSCORE', KEYS[6], ARGV[1]) then
  if redis.call('ZREM', KEYS[3], ARGV[1]) == 1 then
    redis.call('HDEL', KEYS[2], ARGV[1])
    redis.call('HINCRBY', KEYS[1], 'reserved', -cost)
  end
  redis.call('HDEL', KEYS[4], ARGV[1])
  return 0
end
if redis.call('ZREM', KEYS[3], ARGV[1]) == 1 then
  redis.call('HDEL', KEYS[2], ARGV[1])
  redis.call('HINCRBY', KEYS[1], 'reserved', -cost)
elseif redis.call('HDEL', KEYS[4], ARGV[1]) == 0 then
  return 0
end
redis.call('HINCRBY', KEYS[1], 'used', cost)
redis.call('HINCRBY', KEYS[1], 'requests', 1)
redis.call('LPUSH', KEYS[5], ARGV[3])
redis.call('LTRIM', KEYS[5], 0, tonumber(ARGV[4]) - 1)
redis.call('EXPIRE', KEYS[5], tonumber(ARGV[5]))
if replayable then
  local now = tonumber(ARGV[7])
  redis.call('ZADD', KEYS[6], now, ARGV[1])
  redis.call('ZREMRANGEBYSCORE', KEYS[6], '-inf', now - tonumber(ARGV[5]) * 1000)
  redis.call('EXPIRE', KEYS[6], tonumber(ARGV[5]))
end
return 1
`;

// KEYS: q h z x · ARGV: id cost
const RELEASE = `
if redis.call('ZREM', KEYS[3], ARGV[1]) == 1 then
  redis.call('HDEL', KEYS[2], ARGV[1])
  redis.call('HINCRBY', KEYS[1], 'reserved', -tonumber(ARGV[2]))
  return 1
end
redis.call('HDEL', KEYS[4], ARGV[1])
return 0
`;

type ScriptFn = (...args: (string | number)[]) => Promise<unknown>;

export interface RedisBackendOptions {
  readonly url: string;
  /** Key prefix, so that several deployments can share one Redis. */
  readonly prefix?: string;
}

export async function createRedisBackend(opts: RedisBackendOptions): Promise<MeterBackend> {
  const prefix = opts.prefix ?? DEFAULT_PREFIX;
  // Loaded only by a server that uses Redis.
  const { Redis } = await import('ioredis');
  const redis: RedisClient = new Redis(opts.url, {
    lazyConnect: true,
    // Fail a command rather than queue it for long: the request then gets 503, not a hang.
    maxRetriesPerRequest: 2,
    connectTimeout: 5_000,
  });
  // Failures are reported per command (and at connect); an 'error' event must not go unhandled.
  redis.on('error', () => undefined);
  try {
    await redis.connect();
  } catch (e) {
    redis.disconnect();
    throw new Error(`cannot reach Redis at ${redactUrl(opts.url)}: ${messageOf(e)}`);
  }
  redis.defineCommand('cqAdmit', { numberOfKeys: 5, lua: ADMIT });
  redis.defineCommand('cqReserve', { numberOfKeys: 4, lua: RESERVE });
  redis.defineCommand('cqCommit', { numberOfKeys: 6, lua: COMMIT });
  redis.defineCommand('cqRelease', { numberOfKeys: 4, lua: RELEASE });
  const cmd = (name: string) => (redis as unknown as Record<string, ScriptFn>)[name]!.bind(redis);
  const admitScript = cmd('cqAdmit');
  const reserveScript = cmd('cqReserve');
  const commitScript = cmd('cqCommit');
  const releaseScript = cmd('cqRelease');

  const base = (keyId: string) => `${prefix}:{${keyId}}`;
  const periodKeys = (keyId: string, period: string) => {
    const b = base(keyId);
    return [`${b}:q:${period}`, `${b}:h:${period}`, `${b}:z:${period}`, `${b}:x:${period}`];
  };
  /** The three numbers the admit and reserve scripts answer. */
  const nums = (v: unknown): [number, number, number] => {
    const [a, b, c] = parseWith(validateScriptAnswer, v, () => new Error(`Redis answered a metering script with ${JSON.stringify(v)}`));
    return [Number(a), Number(b), Number(c)];
  };

  return {
    kind: 'redis',

    async admit(input: AdmitInput): Promise<AdmitResult> {
      const [count, used, reserved] = nums(
        await admitScript(`${base(input.keyId)}:rl:${input.window}`, ...periodKeys(input.keyId, input.period), input.countRequest ? 1 : 0, 2 * WINDOW_MS, input.now, PERIOD_TTL_S),
      );
      return { count, used, reserved };
    },

    async reserve(r: Reservation, budget: number | null): Promise<ReserveResult> {
      const [ok, used, reserved] = nums(await reserveScript(...periodKeys(r.keyId, r.period), r.id, r.cost, budget ?? -1, r.at, HOLD_TTL_MS, PERIOD_TTL_S));
      return { ok: ok === 1, used, reserved };
    },

    async commit(r: Reservation): Promise<void> {
      // The reply comes after Redis applied the script; with appendonly on, it is in the AOF.
      const charged = Date.now();
      const charge = JSON.stringify({ id: r.id, cost: r.cost, endpoint: r.endpoint ?? null, at: r.at, charged });
      await commitScript(
        ...periodKeys(r.keyId, r.period),
        `${base(r.keyId)}:c:${r.period}`,
        `${base(r.keyId)}:once`,
        r.id,
        r.cost,
        charge,
        RECENT_CHARGES_KEPT,
        PERIOD_TTL_S,
        r.replayable ? 1 : 0,
        charged,
      );
    },

    async release(r: Reservation): Promise<void> {
      await releaseScript(...periodKeys(r.keyId, r.period), r.id, r.cost);
    },

    async usage(filter = {}): Promise<UsageRow[]> {
      const pattern = `${prefix}:{${filter.keyId ?? '*'}}:q:${filter.period ?? '*'}`;
      const out: UsageRow[] = [];
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
        cursor = next;
        for (const k of keys) {
          const [, keyId, period] = /^.*:\{(.+)\}:q:(\d{4}-\d{2})$/.exec(k) ?? [];
          if (keyId === undefined || period === undefined) continue;
          const h = await redis.hgetall(k);
          // A month whose holds were all released (or are still open) charged nothing: no row, as the embedded ledger.
          if (Number(h.requests ?? 0) === 0) continue;
          out.push({ keyId, period, requests: Number(h.requests ?? 0), blocks: Number(h.used ?? 0) });
        }
      } while (cursor !== '0');
      return out.sort((a, b) => a.period.localeCompare(b.period) || a.keyId.localeCompare(b.keyId));
    },

    async recentCharges(keyId: string, period: string, limit: number): Promise<ChargeRecord[]> {
      const items = await redis.lrange(`${base(keyId)}:c:${period}`, 0, Math.max(0, Math.min(limit, RECENT_CHARGES_KEPT) - 1));
      return items.map((text) => {
        const c = JSON.parse(text) as { id: string; cost: number; endpoint: string | null; at: number; charged: number };
        return { requestId: c.id, cost: c.cost, endpoint: c.endpoint, admittedAt: c.at, chargedAt: c.charged };
      });
    },

    async close(): Promise<void> {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}

/** The URL without its password, for messages. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'the given URL';
  }
}
