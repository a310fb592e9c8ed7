/**
 * The registry of operator-defined datasets (docs/custom-datasets.md): each
 * declaration as ingestion last saved it, which the server reads to serve
 * `/v1/evm/custom/…`. Saving one creates its tables and keeps coverage honest
 * when the declaration changes.
 */
import { customDatasetJson, CustomDeclarationError, type CustomDataset } from '../catalog/custom/declaration.ts';
import { customEndpoints } from '../catalog/custom/customEndpoints.ts';
import type { TableDef } from '../catalog/types.ts';
import type { Store } from './types.ts';

/** Every declared dataset, by name. Declarations only change when ingestion saves one. */
export const listCustomDatasets = (store: Store): Promise<readonly CustomDataset[]> => store.customDatasets.list();

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
  const json = JSON.stringify(customDatasetJson(d));

  await store.customDatasets.save({
    name: d.name,
    json,
    current: endpoints,
    all: [...endpoints, ...oldEndpoints],
    fresh: Object.entries(d.networks)
      .filter(([n]) => changed(n))
      .map(([network, n]) => ({ network, fromBlock: n.fromBlock })),
  });
  return { reset };
}
