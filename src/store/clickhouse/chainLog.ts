/** The chain log in ClickHouse SQL (src/store/chainLog.ts says what it is for). */
import type { ClickHouseStore } from './types.ts';

/** Keeps every stored block of `network` above `ancestor` in the chain log; call before the rollback deletes them. */
export async function recordOrphansClickHouse(ch: ClickHouseStore, network: string, ancestor: number): Promise<void> {
  await ch.command(
    `INSERT INTO ${ch.table('orphaned_blocks')} SELECT network, number, hash, parent_hash, now64(3, 'UTC') FROM ${ch.table('blocks')} FINAL
     WHERE network = {network:String} AND number > {ancestor:Int64}`,
    { network, ancestor },
  );
}

/** The newest block and the rollbacks so far (src/store/chainLog.ts, ChainMark). */
export async function chainMark(ch: ClickHouseStore, network: string): Promise<{ newest: number | null; orphans: number }> {
  const [r] = await ch.query<{ newest: number | null; orphans: number }>(
    `SELECT (SELECT maxOrNull(number) FROM ${ch.table('blocks')} WHERE network = {network:String}) AS newest,
            (SELECT count() FROM ${ch.table('orphaned_blocks')} WHERE network = {network:String}) AS orphans`,
    { network },
  );
  return { newest: r?.newest == null ? null : Number(r.newest), orphans: Number(r?.orphans ?? 0) };
}

export async function canonicalHash(ch: ClickHouseStore, network: string, n: number): Promise<string | null> {
  const [r] = await ch.query<{ hash: string }>(`SELECT hash FROM ${ch.table('blocks')} FINAL WHERE network = {network:String} AND number = {n:Int64} LIMIT 1`, { network, n });
  return r?.hash ?? null;
}

export async function orphanParent(ch: ClickHouseStore, network: string, n: number, hash: string): Promise<string | null> {
  const [r] = await ch.query<{ parent_hash: string }>(
    `SELECT parent_hash FROM ${ch.table('orphaned_blocks')} WHERE network = {network:String} AND number = {n:Int64} AND hash = {hash:String} LIMIT 1`,
    { network, n, hash },
  );
  return r?.parent_hash ?? null;
}
