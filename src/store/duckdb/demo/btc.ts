/**
 * Writes the Bitcoin demo's blocks and transfers, which are built outside
 * the store (through ingestion's transfer rule, as ingested ones are), with a
 * CSV load: faster than the appender for this many rows.
 */
import { addCoverage } from '../coverageWrites.ts';
import type { BtcDemoSource } from '../../demoPlan.ts';
import { bulkInsert } from './bulkInsert.ts';
import type { DemoContext } from './context.ts';

const BTC_COLUMNS = [
  ['network', 'VARCHAR'],
  ['block_number', 'BIGINT'],
  ['tx_index', 'INTEGER'],
  ['vout', 'INTEGER'],
  ['time', 'TIMESTAMP'],
  ['tx_hash', 'VARCHAR'],
  ['token', 'VARCHAR'],
  ['sender', 'VARCHAR'],
  ['receiver', 'VARCHAR'],
  ['amount_raw', 'BIGINT'],
  ['amount', 'DOUBLE'],
] as const;

export async function btcDemo(ctx: DemoContext, btc: BtcDemoSource): Promise<void> {
  const { network, dataset } = btc;
  const labelled = (await ctx.tx.all<{ address: string }>(`SELECT address FROM labels WHERE network = '${network}' ORDER BY address`)).map((x) => x.address);
  const { blocks, transfers } = btc.build({ scale: ctx.scale, days: ctx.days, start: ctx.start }, labelled);
  const last = blocks.at(-1);
  if (!last) throw new Error('demo: no Bitcoin block in the window');
  await ctx.tx.run(`DELETE FROM btc_native_transfer WHERE network = '${network}'`);
  await ctx.tx.run(`DELETE FROM blocks WHERE network = '${network}'`);
  await bulkInsert(
    ctx.tx,
    'blocks',
    [
      ['network', 'VARCHAR'],
      ['number', 'BIGINT'],
      ['time', 'TIMESTAMP'],
      ['hash', 'VARCHAR'],
      ['parent_hash', 'VARCHAR'],
    ],
    blocks.map((b) => [network, b.number, new Date(b.time).toISOString(), b.hash, b.parentHash]),
  );
  await bulkInsert(ctx.tx, 'btc_native_transfer', BTC_COLUMNS, transfers);
  await ctx.tx.run(`DELETE FROM coverage WHERE dataset = '${dataset}' AND scope = '${network}'`);
  await addCoverage(ctx.tx, dataset, network, btc.firstBlock, last.number);
}
