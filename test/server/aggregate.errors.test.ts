/** Every way an EVM aggregate request can be wrong answers a 400 JSON error that says what to do. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/testApp.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

const ETH = 'network=ETH&block_start=23910000&block_end=23913599';
const ERC20 = `/v1/evm/erc20/events/transfer/aggregate?${ETH}&token=USDC`;

async function error(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await t.get(url);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  const body = res.json() as Record<string, unknown>;
  expect(body.status).toBe('error');
  expect(String(body.error)).not.toMatch(/SELECT|FROM |\$p\d/);
  return { status: res.statusCode, body };
}

describe('aggregate 400s', () => {
  it('group_by and period are required on EVM, and a missing group_by lists the accepted values', async () => {
    const a = await error(`${ERC20}&period=1h`);
    expect(a).toMatchObject({ status: 400, body: { code: 'missing_parameter', parameter: 'group_by', supported: ['time', 'block_number'] } });
    expect(String(a.body.error)).toMatch(/accepted values: time, block_number/);
    const b = await error(`${ERC20}&group_by=time`);
    expect(b).toMatchObject({ status: 400, body: { code: 'missing_parameter', parameter: 'period' } });
  });

  it('a wrong group_by lists the accepted values', async () => {
    const e = await error(`${ERC20}&group_by=hour&period=1h`);
    expect(e).toMatchObject({ status: 400, body: { code: 'invalid_parameter', parameter: 'group_by', supported: ['time', 'block_number'] } });
    expect(e.body.error).toContain('time, block_number');
  });

  it('a wrong time period lists the accepted forms', async () => {
    for (const p of ['0h', '90s', '1.5h', '1M', '1000', 'daily']) {
      const e = await error(`${ERC20}&group_by=time&period=${p}`);
      expect(e, p).toMatchObject({ status: 400, body: { code: 'invalid_parameter', parameter: 'period', supported: ['<n>m', '<n>h', '<n>d', '<n>w'] } });
    }
  });

  it('a wrong block period says a positive integer is expected', async () => {
    for (const p of ['1h', '0', '-100', '2.5']) {
      const e = await error(`${ERC20}&group_by=block_number&period=${p}`);
      expect(e, p).toMatchObject({ status: 400, body: { code: 'invalid_parameter', parameter: 'period' } });
      expect(e.body.error).toContain('positive integer');
    }
  });

  it('row presentation options of the raw endpoint are unknown here', async () => {
    for (const p of ['verbose=true', 'with_time=false', 'group=time']) {
      const e = await error(`${ERC20}&group_by=time&period=1h&${p}`);
      expect(e, p).toMatchObject({ status: 400, body: { code: 'unknown_parameter' } });
    }
  });

  it('with_value must be a boolean', async () => {
    const e = await error(`${ERC20}&group_by=time&period=1h&with_value=maybe`);
    expect(e).toMatchObject({ status: 400, body: { code: 'invalid_parameter', parameter: 'with_value' } });
  });

  it('range limits are those of the requested format', async () => {
    const wide = '/v1/evm/erc20/events/transfer/aggregate?network=ETH&token=USDC&block_start=23900000&block_end=23910001&group_by=time&period=1h';
    const e = await error(wide);
    expect(e).toMatchObject({ status: 400, body: { code: 'range_too_large', limit: 10_000 } });
    expect(e.body.error).toContain('format=parquet');
    // The same range in Parquet passes the limit and fails only on coverage.
    expect(await error(`${wide}&format=parquet`)).toMatchObject({ status: 400, body: { code: 'invalid_range' } });
  });

  it('ranges outside what was ingested, reversed or doubled are refused', async () => {
    const gap = await error('/v1/evm/native/events/transfer/aggregate?network=ETH&block_start=23913000&block_end=23914000&group_by=time&period=1h');
    expect(gap).toMatchObject({ status: 400, body: { code: 'invalid_range', missing_blocks: [[23_913_600, 23_914_000]] } });
    const reversed = await error('/v1/evm/native/events/transfer/aggregate?network=ETH&block_start=23913000&block_end=23912000&group_by=time&period=1h');
    expect(reversed).toMatchObject({ status: 400, body: { code: 'invalid_range' } });
    const both = await error(`/v1/evm/native/events/transfer/aggregate?${ETH}&since=2025-12-01&until=2025-12-01T01:00:00Z&group_by=time&period=1h`);
    expect(both).toMatchObject({ status: 400, body: { code: 'conflicting_parameters' } });
    const none = await error('/v1/evm/native/events/transfer/aggregate?network=ETH&group_by=time&period=1h');
    expect(none).toMatchObject({ status: 400, body: { code: 'missing_parameter' } });
  });

  it('filters of the raw endpoint are checked as there', async () => {
    expect(await error(`/v1/evm/native/events/transfer/aggregate?${ETH.replace('ETH', 'BSC')}&group_by=time&period=1h`)).toMatchObject({ status: 400, body: { code: 'unsupported_network' } });
    expect(await error(`/v1/evm/erc20/events/transfer/aggregate?${ETH}&token=NOPE&group_by=time&period=1h`)).toMatchObject({ status: 400, body: { code: 'unknown_token' } });
    expect(await error(`/v1/evm/erc20/events/transfer/aggregate?${ETH}&token=USDC&involving=0x1&group_by=time&period=1h`)).toMatchObject({
      status: 400,
      body: { code: 'invalid_parameter', parameter: 'involving' },
    });
    expect(
      await error(
        `/v1/evm/erc20/events/transfer/aggregate?${ETH}&token=USDC&involving=0x0000000000000000000000000000000000000001&sender=0x0000000000000000000000000000000000000001&group_by=time&period=1h`,
      ),
    ).toMatchObject({ status: 400, body: { code: 'conflicting_parameters' } });
    expect(await error(`/v1/evm/lending_v3/events/deposit/aggregate?network=ARB&block_start=405000000&block_end=405000100&eth_market_type=Prime&group_by=time&period=1h`)).toMatchObject({
      status: 400,
      body: { code: 'invalid_parameter', parameter: 'eth_market_type' },
    });
  });

  it('dex_v3 needs a pool that exists', async () => {
    expect(await error(`/v1/evm/dex_v3/events/swap/aggregate?${ETH}&symbol0=WETH&fee=500&group_by=time&period=1h`)).toMatchObject({
      status: 400,
      body: { code: 'missing_parameter', parameter: 'symbol1' },
    });
    expect(await error(`/v1/evm/dex_v3/events/swap/aggregate?${ETH}&symbol0=WETH&symbol1=USDC&fee=100&group_by=time&period=1h`)).toMatchObject({
      status: 400,
      body: { code: 'invalid_parameter', parameter: 'fee', supported: [500, 3000] },
    });
    expect(await error(`/v1/evm/dex_v3/events/swap/aggregate?${ETH}&symbol0=WETH&symbol1=USDC&fee=7&group_by=time&period=1h`)).toMatchObject({
      status: 400,
      body: { code: 'invalid_parameter', parameter: 'fee' },
    });
  });
});
