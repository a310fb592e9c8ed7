import { describe, expect, it } from 'vitest';
import { btcTransfer } from '../catalog/btc/transfer.ts';
import { erc20Transfer } from '../protocols/erc20/catalog.ts';
import { tronTrc20Transfer } from '../catalog/tron/transfers.ts';
import { ApiError } from '../errors/apiError.ts';
import { MONDAY_ORIGIN_MS, parseBucketing } from './bucketing.ts';

function rejection(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error('expected an ApiError');
}

describe('parseBucketing', () => {
  it('reads EVM time periods of any count in minutes, hours, days and weeks', () => {
    expect(parseBucketing(erc20Transfer, 'time', '1m')).toMatchObject({ kind: 'time', widthMs: 60_000, originMs: 0 });
    expect(parseBucketing(erc20Transfer, 'time', '7m')).toMatchObject({ widthMs: 7 * 60_000 });
    expect(parseBucketing(erc20Transfer, 'time', '2h')).toMatchObject({ widthMs: 2 * 3_600_000, originMs: 0 });
    expect(parseBucketing(erc20Transfer, 'time', '3d')).toMatchObject({ widthMs: 3 * 86_400_000, originMs: 0 });
  });

  it('aligns week buckets to a Monday', () => {
    const b = parseBucketing(erc20Transfer, 'time', '1w');
    expect(b).toMatchObject({ widthMs: 7 * 86_400_000, originMs: MONDAY_ORIGIN_MS });
    expect(new Date(MONDAY_ORIGIN_MS).getUTCDay()).toBe(1);
  });

  it('reads block periods as positive block counts', () => {
    expect(parseBucketing(erc20Transfer, 'block_number', '10000')).toEqual({ kind: 'block_number', period: '10000', width: 10_000 });
  });

  it('rejects malformed EVM time periods with a 400 that lists the accepted forms', () => {
    for (const p of ['0m', '90s', '1.5h', 'h', '1M', '1000', '', '1 h', '1000000m', '-1h']) {
      const e = rejection(() => parseBucketing(erc20Transfer, 'time', p));
      expect(e.status, p).toBe(400);
      expect(e.code).toBe('invalid_parameter');
      expect(e.message).toContain('<n>m, <n>h, <n>d or <n>w');
      expect(e.extra.supported).toEqual(['<n>m', '<n>h', '<n>d', '<n>w']);
    }
  });

  it('rejects block periods that are not positive integers', () => {
    for (const p of ['0', '-5', '1.5', '1h', 'abc', '1e3']) {
      const e = rejection(() => parseBucketing(erc20Transfer, 'block_number', p));
      expect(e.code, p).toBe('invalid_parameter');
      expect(e.message).toContain('positive integer');
    }
  });

  it('requires a period on EVM', () => {
    expect(rejection(() => parseBucketing(erc20Transfer, 'time', undefined)).code).toBe('missing_parameter');
  });

  it('gives Tron and Bitcoin their defaults: 1h for time, 1000 for blocks', () => {
    expect(parseBucketing(tronTrc20Transfer, 'time', undefined)).toMatchObject({ kind: 'time', period: '1h', widthMs: 3_600_000 });
    expect(parseBucketing(btcTransfer, 'block_number', undefined)).toMatchObject({ kind: 'block_number', width: 1000 });
  });

  it('limits Tron and Bitcoin time periods to the listed ones', () => {
    for (const ok of ['1m', '5m', '30m', '1h', '1d', '1w']) expect(parseBucketing(btcTransfer, 'time', ok).kind).toBe('time');
    for (const bad of ['2h', '15m', '7d', '10m']) {
      const e = rejection(() => parseBucketing(tronTrc20Transfer, 'time', bad));
      expect(e.code, bad).toBe('invalid_parameter');
      expect(e.extra.supported).toEqual(['1m', '5m', '30m', '1h', '1d', '1w']);
      expect(e.message).toContain('1m, 5m, 30m, 1h, 1d, 1w');
    }
  });
});
