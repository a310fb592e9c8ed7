/**
 * Venue writes on ClickHouse: a unit is written as on DuckDB into the
 * scratch store, which holds only the unit (the span lets a keyed write read
 * more), inside one of its transactions, then published in the order of
 * ./publish.ts (docs/storage.md, "Writes without transactions").
 */
import type { VenueOperations } from '../types.ts';
import type { Tx } from '../duckdb/types.ts';
import { venueOperations, type UnitSpan, type VenueUnit } from '../duckdb/venueWrites.ts';
import { recordedChecksum } from './lookups.ts';
import { publishBatch, timeTable, type ScratchTarget } from './publish.ts';
import type { ClickHouseStore } from './types.ts';

/** `store` is read at each call: the operations are part of the store they use. */
export function clickHouseVenues(store: () => ClickHouseStore): VenueOperations {
  async function commit<T>(unit: VenueUnit, write: (tx: Tx, span: UnitSpan | null) => Promise<T>): Promise<T> {
    // Set inside the publish's write, which runs exactly once before the publish resolves.
    const written: { result?: { value: T } } = {};
    await publishBatch(
      store(),
      {
        scopes: unit.tokens,
        lo: unit.lo,
        hi: unit.hi,
        tables: unit.tables.map(timeTable),
        extraTables: unit.extraTables ?? [],
        covers: unit.complete ? unit.datasets : [],
        uncovers: [],
        keeps: unit.complete ? [] : unit.datasets,
        ...(unit.onStep ? { onStep: unit.onStep } : {}),
      },
      (scratch, ctx) =>
        scratch.transaction(async (tx) => {
          const into: ScratchTarget = tx;
          written.result = {
            value: await write(tx, {
              replace: (lo, hi) => ctx.replaceSpan(into, lo, hi),
              loadLatest: (table, keyColumn, keys) => ctx.loadLatest(into, table, keyColumn, keys),
            }),
          };
        }),
    );
    if (!written.result) throw new Error('the unit was published without being written');
    return written.result.value;
  }
  return venueOperations(commit, (source, path) => recordedChecksum(store(), source, path));
}
