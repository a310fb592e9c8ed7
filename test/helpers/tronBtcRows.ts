/**
 * Tron and Bitcoin events written straight into a store, for tests that need
 * them before (or without) their ingestion: deterministic pseudo-random
 * transfers, their blocks and their coverage.
 */
import { catalog } from '../../src/catalog/index.ts';
import type { Endpoint } from '../../src/catalog/types.ts';
import type { Store } from '../../src/store/types.ts';
import type { Row } from './aggregateOracle.ts';
import { engineSql } from './engineSql.ts';

export const TRON0 = 77_800_000;
export const BTC0 = 925_000;
/** 3 s each: 5 hours from 2025-12-01T00:00Z. */
export const TRON_BLOCKS = 6_000;
/** 600 s each: 2.8 days from 2025-12-01T00:00Z. */
export const BTC_BLOCKS = 400;
const USDT_TRON = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';

/** The catalog with the Tron and Bitcoin entries served, whether or not the shipped catalog serves them yet. */
export function servedWithTronBtc(): Endpoint[] {
  return catalog.map((e) => (e.family === 'tron' || e.family === 'btc' ? { ...e, served: true } : e));
}

/** The tables `writeTronBtcRows` writes: what a ClickHouse test store mirrors from its DuckDB oracle (engineSql.ts). */
export const TRON_BTC_TABLES = ['blocks', 'tron_trc20_transfer', 'tron_native_transfer', 'btc_native_transfer', 'coverage'] as const;

/** Writes the events into a DuckDB store and returns them as stored: block_number, time (ISO), token, amount. */
export async function writeTronBtcRows(store: Store): Promise<Record<'trc20' | 'trx' | 'btc', Row[]>> {
  // Deterministic pseudo-random events: hash(i, tag) picks the block and the amount.
  const blockTime = (start: number, seconds: number, n: string) => `TIMESTAMP '2025-12-01' + to_seconds((${n} - ${start}) * ${seconds})`;
  await engineSql(store).run(`INSERT INTO blocks SELECT 'TRON', ${TRON0} + i, ${blockTime(TRON0, 3, `${TRON0} + i`)}, 't' || i, 't' || (i - 1) FROM range(${TRON_BLOCKS}) r(i)`);
  await engineSql(store).run(`INSERT INTO blocks SELECT 'BTC', ${BTC0} + i, ${blockTime(BTC0, 600, `${BTC0} + i`)}, 'b' || i, 'b' || (i - 1) FROM range(${BTC_BLOCKS}) r(i)`);
  const events = (first: number, blocks: number, n: number, tag: string, scale: number) =>
    `(SELECT i, ${first} + hash(i, '${tag}:b') % ${blocks} AS b, round((hash(i, '${tag}:a') % 1000000000) / 1e9 * ${scale}, 6) AS amount FROM range(${n}) r(i))`;
  await engineSql(store).run(`INSERT INTO tron_trc20_transfer SELECT 'TRON', b, i, ${blockTime(TRON0, 3, 'b')}, '0xt' || i, '${USDT_TRON}', 'USDT', 6,
      'TSender', 'TReceiver', CAST(round(amount * 1e6) AS BIGINT)::BIGNUM, amount FROM ${events(TRON0, TRON_BLOCKS, 4000, 'trc20', 1e6)}`);
  await engineSql(store).run(`INSERT INTO tron_native_transfer SELECT 'TRON', b, i, ${blockTime(TRON0, 3, 'b')}, '0xn' || i, 'TRX',
      'TSender', 'TReceiver', CAST(round(amount * 1e6) AS BIGINT), amount FROM ${events(TRON0, TRON_BLOCKS, 4000, 'trx', 1e6)}`);
  await engineSql(store).run(`INSERT INTO btc_native_transfer SELECT 'BTC', b, i, 0, ${blockTime(BTC0, 600, 'b')}, 'tx' || i, 'BTC',
      'bc1qsender', 'bc1qreceiver', CAST(round(amount * 1e8) AS BIGINT), amount FROM ${events(BTC0, BTC_BLOCKS, 1500, 'btc', 10)}`);
  for (const [dataset, scope, lo, n] of [
    ['tron/trc20/transfer', 'TRON', TRON0, TRON_BLOCKS],
    ['tron/native/transfer', 'TRON', TRON0, TRON_BLOCKS],
    ['btc/native/transfer', 'BTC', BTC0, BTC_BLOCKS],
  ] as const) {
    await engineSql(store).run('INSERT INTO coverage VALUES ($dataset, $scope, $lo, $hi)', { dataset, scope, lo, hi: lo + n - 1 });
  }
  // The oracle's input: the rows as stored, read back plainly.
  const rows = {} as Record<'trc20' | 'trx' | 'btc', Row[]>;
  for (const [k, table] of [
    ['trc20', 'tron_trc20_transfer'],
    ['trx', 'tron_native_transfer'],
    ['btc', 'btc_native_transfer'],
  ] as const) {
    rows[k] = (await engineSql(store).all<Row>(`SELECT block_number, strftime(time, '%Y-%m-%dT%H:%M:%SZ') AS time, token, amount FROM ${table}`)).map((r) => ({
      ...r,
      block_number: Number(r.block_number),
    }));
  }
  return rows;
}
