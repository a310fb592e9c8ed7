/**
 * The registry of operator-defined datasets (docs/custom-datasets.md): each
 * declaration as ingestion last saved it, which the server reads to serve
 * `/v1/evm/custom/…`. Saving one creates its tables and keeps coverage honest
 * when the declaration changes.
 */
import { customDatasetJson, CustomDeclarationError, type CustomDataset } from '../catalog/custom/declaration.ts';
import { customEndpoints, readCustomDeclaration } from '../catalog/custom/customEndpoints.ts';
import type { ChainEndpoint, TableDef } from '../catalog/types.ts';
import { clickHouseOf } from './clickhouse/createClickHouseStore.ts';
import { clickHouseTime } from './clickhouse/time.ts';
import type { ClickHouseStore } from './clickhouse/types.ts';
import { blockTable, publishBatch, rollbackClickHouse } from './clickhouse/publish.ts';
import { clickHouseTableDdl } from './clickhouse/schema.ts';
import { addCoverageMany } from './coverage.ts';
import { requireDuckDb } from './duckdb/types.ts';
import type { Store } from './types.ts';
import { cachedLookup, ttlLookup } from './lookupCache.ts';
import { tableDdl } from './schema.ts';

interface StoredDeclaration {
  readonly name: string;
  readonly declaration: string;
}

async function storedDeclarations(store: Store): Promise<StoredDeclaration[]> {
  const ch = clickHouseOf(store);
  if (ch) {
    return ch.query<StoredDeclaration>(`SELECT name, argMax(declaration, declared_at) AS declaration FROM ${ch.table('custom_datasets')} GROUP BY name HAVING declaration != '' ORDER BY name`);
  }
  return requireDuckDb(store, 'reading custom datasets').all<StoredDeclaration>(`SELECT name, declaration FROM custom_datasets ORDER BY name`);
}

/** Every declared dataset, by name. Declarations only change when ingestion saves one. */
export function listCustomDatasets(store: Store): Promise<readonly CustomDataset[]> {
  const compute = async () => (await storedDeclarations(store)).map((r) => readCustomDeclaration(JSON.parse(r.declaration)));
  const ch = clickHouseOf(store);
  return ch ? ttlLookup(ch.client, 'customDatasets', compute) : cachedLookup(store, 'customDatasets', compute);
}

/** The tables of every declared event, by dataset id: what a reorg rolls back besides the built-in datasets. */
export async function customTables(store: Store): Promise<Map<string, TableDef>> {
  return new Map((await listCustomDatasets(store)).flatMap(customEndpoints).map((e) => [e.id, e.table]));
}

/** What changed when a declaration was saved. */
export interface SavedDeclaration {
  /** Networks whose contracts or first block changed: their rows and coverage were dropped, to be ingested again. */
  readonly reset: readonly string[];
}

/**
 * Saves a declaration (a new one, or the same name declared again) with its
 * tables. Events may be added; an event already declared must keep its
 * inputs, since its table has their columns. Where a network's contracts or
 * first block changed, what was ingested for it no longer answers the
 * declaration: its rows and coverage are dropped. Blocks before `from_block`
 * hold no event of the dataset by declaration, so they are covered at once.
 */
export async function saveCustomDataset(store: Store, d: CustomDataset): Promise<SavedDeclaration> {
  const previous = (await listCustomDatasets(store)).find((x) => x.name === d.name);
  for (const e of d.events) {
    const before = previous?.events.find((p) => p.event === e.event);
    if (before && before.signature !== e.signature) {
      throw new CustomDeclarationError(`${d.name}: events/${e.event} is already declared as ${before.signature}; its table keeps those columns. Declare ${e.signature} under a new dataset name`);
    }
    if (before && before.inputs.map((i) => i.name).join() !== e.inputs.map((i) => i.name).join()) {
      throw new CustomDeclarationError(`${d.name}: ${e.signature} is already declared with inputs named ${before.inputs.map((i) => i.name).join(', ')}; its table keeps those names`);
    }
  }
  const changed = (network: string): boolean => {
    const was = previous?.networks[network];
    const now = d.networks[network]!;
    return !was || was.fromBlock !== now.fromBlock || was.addresses.join() !== now.addresses.join();
  };
  const reset = Object.keys(d.networks).filter((n) => previous?.networks[n] && changed(n));
  // Every event ever declared under the name: a network reset empties them all.
  const endpoints = customEndpoints(d);
  const oldEndpoints = previous ? customEndpoints(previous).filter((o) => !endpoints.some((e) => e.id === o.id)) : [];
  const fresh = Object.keys(d.networks).filter(changed);
  const json = JSON.stringify(customDatasetJson(d));

  const ch = clickHouseOf(store);
  if (ch) {
    await saveOnClickHouse(ch, d, json, endpoints, [...endpoints, ...oldEndpoints], fresh);
    return { reset };
  }
  await requireDuckDb(store, 'saving a custom dataset').transaction(async (tx) => {
    for (const e of endpoints) await tx.run(tableDdl(e.table));
    for (const network of fresh) {
      for (const e of [...endpoints, ...oldEndpoints]) {
        await tx.run(`DELETE FROM ${e.table.name} WHERE network = $network`, { network });
        await tx.run(`DELETE FROM coverage WHERE dataset = $dataset AND scope = $network`, { dataset: e.id, network });
      }
      const from = d.networks[network]!.fromBlock;
      if (from > 0)
        await addCoverageMany(
          tx,
          endpoints.map((e) => e.id),
          network,
          0,
          from - 1,
        );
    }
    await tx.run(`DELETE FROM custom_datasets WHERE name = $name`, { name: d.name });
    await tx.run(`INSERT INTO custom_datasets VALUES ($name, $declaration, now()::TIMESTAMP)`, { name: d.name, declaration: json });
  });
  return { reset };
}

/** `current`: the declaration's events; `all`: those and the events it no longer declares, emptied with it on a reset network. */
async function saveOnClickHouse(ch: ClickHouseStore, d: CustomDataset, json: string, current: readonly ChainEndpoint[], all: readonly ChainEndpoint[], fresh: readonly string[]): Promise<void> {
  for (const e of current) for (const ddl of clickHouseTableDdl(e.table, { database: ch.database, cluster: ch.cluster })) await ch.command(ddl);
  const tables = all.map((e) => blockTable(e.table.name));
  for (const network of fresh) {
    // Everything held for the network goes, as in a reorg below its first block.
    await rollbackClickHouse(
      ch,
      network,
      -1,
      all.map((e) => e.id),
      tables,
    );
    const from = d.networks[network]!.fromBlock;
    if (from === 0) continue;
    // Blocks before from_block, published like an ingested batch with no rows: they become covered.
    await publishBatch(
      ch,
      {
        scopes: [network],
        lo: 0,
        hi: from - 1,
        tables: current.map((e) => blockTable(e.table.name)),
        scratchTables: current.map((e) => e.table),
        extraTables: [],
        covers: current.map((e) => e.id),
        uncovers: [],
      },
      async () => undefined,
    );
  }
  await ch.insert('custom_datasets', [{ name: d.name, declaration: json, declared_at: clickHouseTime(Date.now()) }]);
}
