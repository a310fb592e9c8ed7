/** The chain log's write in DuckDB (src/store/chainLog.ts says what the log is for). */
import type { Tx } from './types.ts';

/** Keeps every stored block of `network` above `ancestor` in the chain log; call in the rollback's transaction, before its deletes. */
export async function recordOrphans(tx: Tx, network: string, ancestor: number): Promise<void> {
  await tx.run(`INSERT INTO orphaned_blocks SELECT network, number, hash, parent_hash, now()::TIMESTAMP FROM blocks WHERE network = $network AND number > $ancestor`, { network, ancestor });
}
