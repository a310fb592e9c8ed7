/**
 * A test's way to make stored rows differ from the node's, so that `chainq
 * verify` has something to find: deletes the rows of `table` in a block, or
 * sets one column of one row, in the store's own SQL.
 */
import { clickHouseOf } from '../../src/store/clickhouse/createClickHouseStore.ts';
import { ident as chIdent } from '../../src/store/clickhouse/render.ts';
import { ident as duckIdent } from '../../src/store/duckdb/render.ts';
import type { Store } from '../../src/store/types.ts';
import { engineSql } from './engineSql.ts';

export async function tamperWithRows(
  store: Store,
  change: { kind: 'delete'; table: string; network: string; block: number } | { kind: 'set'; table: string; network: string; block: number; logIndex: number; column: string; value: string },
): Promise<void> {
  const ch = clickHouseOf(store);
  if (ch) {
    const where = `network = {network:String} AND block_number = {block:Int64}`;
    if (change.kind === 'delete') await ch.command(`DELETE FROM ${ch.table(change.table)} WHERE ${where}`, { network: change.network, block: change.block });
    else
      await ch.command(`ALTER TABLE ${ch.table(change.table)} UPDATE ${chIdent(change.column)} = {value:String} WHERE ${where} AND log_index = {li:Int64} SETTINGS mutations_sync = 2`, {
        network: change.network,
        block: change.block,
        li: change.logIndex,
        value: change.value,
      });
    return;
  }
  const p = { network: change.network, block: change.block };
  if (change.kind === 'delete') await engineSql(store).run(`DELETE FROM ${duckIdent(change.table)} WHERE network = $network AND block_number = $block`, p);
  else
    await engineSql(store).run(`UPDATE ${duckIdent(change.table)} SET ${duckIdent(change.column)} = $value WHERE network = $network AND block_number = $block AND log_index = $li`, {
      ...p,
      li: change.logIndex,
      value: change.value,
    });
}
