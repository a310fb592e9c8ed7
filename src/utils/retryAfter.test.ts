import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from './retryAfter.ts';

describe('parseRetryAfter', () => {
  it('reads delta-seconds, fractions included, as milliseconds', () => {
    expect(parseRetryAfter('2')).toBe(2_000);
    expect(parseRetryAfter(' 0.2 ')).toBe(200);
    expect(parseRetryAfter('0')).toBe(0);
  });

  it('reads an HTTP date as the time left until it, a past date as 0', () => {
    const now = Date.parse('2025-12-01T10:00:00Z');
    expect(parseRetryAfter('Mon, 01 Dec 2025 10:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Mon, 01 Dec 2025 09:00:00 GMT', now)).toBe(0);
  });

  it('is undefined when the header is absent, empty or unreadable', () => {
    expect(parseRetryAfter(null)).toBeUndefined();
    expect(parseRetryAfter(undefined)).toBeUndefined();
    expect(parseRetryAfter('  ')).toBeUndefined();
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter('-3')).toBeUndefined();
  });
});
