import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { monthPeriod, nextMonthStart, secondsToWindowEnd, windowIndex } from './period.ts';
import { DEFAULT_PLANS, loadPlans, parsePlans } from './plans.ts';

describe('plans', () => {
  it('ships free, pro and unlimited', () => {
    expect([...DEFAULT_PLANS.values()]).toEqual([
      { name: 'free', requestsPerMinute: 60, monthlyBlocks: 500_000, concurrentRequests: 8, concurrentStreams: 2 },
      { name: 'pro', requestsPerMinute: 600, monthlyBlocks: 50_000_000, concurrentRequests: 32, concurrentStreams: 16 },
      { name: 'unlimited', requestsPerMinute: null, monthlyBlocks: null, concurrentRequests: null, concurrentStreams: null },
    ]);
  });

  it('lays the file over the shipped plans: a changed field, a new plan, the rest kept', () => {
    const p = parsePlans(
      JSON.stringify({
        plans: {
          free: { monthly_blocks: 100_000 },
          team: { requests_per_minute: 120, monthly_blocks: null },
          batch: { requests_per_minute: 10, monthly_blocks: null, concurrent_requests: 2, concurrent_streams: 0 },
        },
      }),
    );
    expect(p.get('free')).toEqual({ name: 'free', requestsPerMinute: 60, monthlyBlocks: 100_000, concurrentRequests: 8, concurrentStreams: 2 });
    // concurrent_requests and concurrent_streams are optional: a new plan without them has no such limit; 0 streams refuses every stream.
    expect(p.get('team')).toEqual({ name: 'team', requestsPerMinute: 120, monthlyBlocks: null, concurrentRequests: null, concurrentStreams: null });
    expect(p.get('batch')).toEqual({ name: 'batch', requestsPerMinute: 10, monthlyBlocks: null, concurrentRequests: 2, concurrentStreams: 0 });
    expect(p.get('pro')).toEqual(DEFAULT_PLANS.get('pro'));
  });

  it.each([
    ['not JSON', '{plans', /not valid JSON/],
    ['no plans object', '{"tiers": {}}', /expected an object/],
    ['a new plan without both fields', '{"plans": {"team": {"requests_per_minute": 5}}}', /team needs monthly_blocks/],
    ['a negative limit', '{"plans": {"free": {"requests_per_minute": -1}}}', /non-negative integer or null/],
    ['a fractional budget', '{"plans": {"free": {"monthly_blocks": 1.5}}}', /non-negative integer or null/],
    ['a limit as a string', '{"plans": {"free": {"monthly_blocks": "1000"}}}', /non-negative integer or null/],
    ['an unknown field', '{"plans": {"free": {"requests_per_hour": 5}}}', /unknown field requests_per_hour/],
    ['a concurrency limit of 0', '{"plans": {"free": {"concurrent_requests": 0}}}', /concurrent_requests must be a positive integer or null/],
    ['a bad name', '{"plans": {"my plan": {"requests_per_minute": 1, "monthly_blocks": 1}}}', /plan name/],
  ])('rejects %s with a message that says what is wrong', (_name, text, message) => {
    expect(() => parsePlans(text, 'plans.json')).toThrow(message);
  });

  it('reads --plans, else <data>/plans.json, else the shipped plans', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-plans-'));
    try {
      expect(loadPlans({ dataDir: dir })).toBe(DEFAULT_PLANS);
      fs.writeFileSync(path.join(dir, 'plans.json'), '{"plans": {"free": {"requests_per_minute": 1}}}');
      expect(loadPlans({ dataDir: dir }).get('free')?.requestsPerMinute).toBe(1);
      const other = path.join(dir, 'other.json');
      fs.writeFileSync(other, '{"plans": {"free": {"requests_per_minute": 2}}}');
      expect(loadPlans({ file: other, dataDir: dir }).get('free')?.requestsPerMinute).toBe(2);
      expect(() => loadPlans({ file: path.join(dir, 'missing.json') })).toThrow(/does not exist/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('periods and windows (UTC)', () => {
  it('a month runs from 00:00 UTC on the 1st', () => {
    expect(monthPeriod(Date.parse('2025-11-30T23:59:59.999Z'))).toBe('2025-11');
    expect(monthPeriod(Date.parse('2025-12-01T00:00:00Z'))).toBe('2025-12');
    expect(monthPeriod(Date.parse('2025-12-01T00:30:00+01:00'))).toBe('2025-11');
    expect(new Date(nextMonthStart(Date.parse('2025-12-31T12:00:00Z'))).toISOString()).toBe('2026-01-01T00:00:00.000Z');
  });

  it('windows are whole UTC minutes; the reset is the whole seconds left, 1 to 60', () => {
    const t = Date.parse('2025-12-10T12:00:00Z');
    expect(windowIndex(t)).toBe(windowIndex(t + 59_999));
    expect(windowIndex(t + 60_000)).toBe(windowIndex(t) + 1);
    expect(secondsToWindowEnd(t)).toBe(60);
    expect(secondsToWindowEnd(t + 10_000)).toBe(50);
    expect(secondsToWindowEnd(t + 10_001)).toBe(50);
    expect(secondsToWindowEnd(t + 59_999)).toBe(1);
  });
});
