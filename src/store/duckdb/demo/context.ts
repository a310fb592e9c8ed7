/**
 * What every demo generator shares: the transaction it writes in, the
 * window, and the helpers that place events on a network's blocks (DuckDB
 * SQL over `range()`). Kept apart from generate.ts, which calls the
 * generators, so that they import it and not their caller.
 */
import { blockSeconds } from '../../../catalog/networks.ts';
import { addCoverage } from '../coverageWrites.ts';
import type { Tx } from '../types.ts';

export interface DemoContext {
  readonly tx: Tx;
  readonly scale: number;
  readonly days: number;
  readonly start: number;
  /** The first block of the window per network. */
  readonly startBlocks: Readonly<Record<string, number>>;
}

export function blockSpan(ctx: DemoContext, network: string): { first: number; count: number; seconds: number } {
  const seconds = blockSeconds(network);
  const first = ctx.startBlocks[network];
  if (first === undefined) throw new Error(`demo: no start block for ${network}`);
  return { first, count: Math.floor((ctx.days * 86_400) / seconds), seconds };
}

/** Block time as the chain reports it: whole seconds. */
export function blockTimeSql(ctx: DemoContext, network: string, blockExpr: string): string {
  const { first, seconds } = blockSpan(ctx, network);
  return `to_timestamp(${ctx.start / 1000} + floor((${blockExpr} - ${first}) * ${seconds}))::TIMESTAMP`;
}

/**
 * The skeleton of a synthetic event table: `n` events spread uniformly over
 * the window's blocks, with block_number, log_index, time, tx_hash and a
 * per-event seed `i`, ordered as the table is.
 */
export function skeleton(ctx: DemoContext, network: string, tag: string, perDay: number): string {
  const { first, count } = blockSpan(ctx, network);
  const n = Math.max(1, Math.round(perDay * ctx.days * ctx.scale));
  return `(SELECT *, ${blockTimeSql(ctx, network, 'block_number')} AS time,
                 txh('${tag}:' || i) AS tx_hash,
                 (row_number() OVER (PARTITION BY block_number ORDER BY i) - 1)::INTEGER AS log_index
          FROM (SELECT i, ${first} + floor(u(i, '${tag}:blk') * ${count})::BIGINT AS block_number FROM range(${n}) r(i)))`;
}

export async function finish(ctx: DemoContext, dataset: string, network: string): Promise<void> {
  const { first, count } = blockSpan(ctx, network);
  await ctx.tx.run(`DELETE FROM coverage WHERE dataset = '${dataset}' AND scope = '${network}'`);
  await addCoverage(ctx.tx, dataset, network, first - 1, first + count - 1);
}
