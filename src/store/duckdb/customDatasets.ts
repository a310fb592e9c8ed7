/** Custom dataset declarations on DuckDB (../customDatasets.ts): a save is one transaction. */
import { readCustomDeclaration } from '../../catalog/custom/customEndpoints.ts';
import { tableDdl } from '../schema.ts';
import type { CustomDatasetOperations } from '../types.ts';
import type { DuckDbStatements } from './types.ts';
import { addCoverageMany } from './coverageWrites.ts';

export function duckDbCustomDatasets(db: Pick<DuckDbStatements, 'all' | 'transaction'>, lookup: <T>(key: string, compute: () => Promise<T>) => Promise<T>): CustomDatasetOperations {
  return {
    list: () =>
      lookup('customDatasets', async () =>
        (await db.all<{ name: string; declaration: string }>(`SELECT name, declaration FROM custom_datasets ORDER BY name`)).map((r) => readCustomDeclaration(JSON.parse(r.declaration))),
      ),
    save: (w) =>
      db.transaction(async (tx) => {
        for (const e of w.current) await tx.run(tableDdl(e.table));
        for (const { network, fromBlock } of w.fresh) {
          for (const e of w.all) {
            await tx.run(`DELETE FROM ${e.table.name} WHERE network = $network`, { network });
            await tx.run(`DELETE FROM coverage WHERE dataset = $dataset AND scope = $network`, { dataset: e.id, network });
          }
          if (fromBlock > 0)
            await addCoverageMany(
              tx,
              w.current.map((e) => e.id),
              network,
              0,
              fromBlock - 1,
            );
        }
        await tx.run(`DELETE FROM custom_datasets WHERE name = $name`, { name: w.name });
        await tx.run(`INSERT INTO custom_datasets VALUES ($name, $declaration, now()::TIMESTAMP)`, { name: w.name, declaration: w.json });
      }),
  };
}
