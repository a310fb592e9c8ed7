/** Venue writes on DuckDB: each unit is one transaction of the store, which sees everything (no span to read). */
import type { VenueOperations } from '../types.ts';
import type { DuckDbStatements } from './types.ts';
import { venueOperations } from './venueWrites.ts';

export function duckDbVenues(db: Pick<DuckDbStatements, 'all' | 'transaction'>): VenueOperations {
  return venueOperations(
    (_unit, write) => db.transaction((tx) => write(tx, null)),
    async (source, path) => {
      const [r] = await db.all<{ sha256: string }>(`SELECT sha256 FROM ingest_files WHERE source = $source AND path = $path`, { source, path });
      return r?.sha256 ?? null;
    },
  );
}
