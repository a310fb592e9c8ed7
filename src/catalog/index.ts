/**
 * The catalog: every endpoint of the service, as data. EVM protocols come
 * from the protocol registry (src/protocols/); the other families' files are
 * under catalog/<family>/ and listed here.
 */
import { protocolRegistry } from '../protocols/index.ts';
import { tronNativeTransfer, tronTrc20Transfer } from './tron/transfers.ts';
import { btcTransfer } from './btc/transfer.ts';
import { venueAEndpoints } from './venues/venue_a.ts';
import { venueBEndpoints } from './venues/venue_b.ts';
import type { ChainEndpoint, Endpoint, VenueEndpoint } from './types.ts';

export const chainEndpoints: readonly ChainEndpoint[] = [...protocolRegistry.endpoints, tronTrc20Transfer, tronNativeTransfer, btcTransfer];

export const venueEndpoints: readonly VenueEndpoint[] = [...venueAEndpoints, ...venueBEndpoints];

export const catalog: readonly Endpoint[] = [...chainEndpoints, ...venueEndpoints];

export function endpointById(id: string): Endpoint | undefined {
  return catalog.find((e) => e.id === id);
}

/** Checks the catalog's own consistency; run at boot and in tests. */
export function validateCatalog(entries: readonly Endpoint[] = catalog): void {
  const seen = new Set<string>();
  const tables = new Map<string, unknown>();
  for (const e of entries) {
    for (const key of [e.id, e.path]) {
      if (seen.has(key)) throw new Error(`catalog: duplicate ${key}`);
      seen.add(key);
    }
    // Endpoints may share a table (open interest and ratios come from one file), but only the same definition.
    if (tables.has(e.table.name) && tables.get(e.table.name) !== e.table) throw new Error(`catalog: two definitions of table ${e.table.name}`);
    tables.set(e.table.name, e.table);
    const stored = new Set(e.table.columns.map((c) => c.name));
    for (const k of e.table.orderBy) if (!stored.has(k)) throw new Error(`catalog: ${e.id} orders by unknown column ${k}`);
    const outputs = [...e.columns, ...(e.family === 'exchange' ? [] : e.verboseColumns)];
    for (const c of outputs) {
      if (c.expr === undefined && !stored.has(c.name)) throw new Error(`catalog: ${e.id} column ${c.name} is not stored and has no expression`);
    }
    for (const [name, f] of Object.entries(e.filters)) {
      if (!(name in e.params)) throw new Error(`catalog: ${e.id} filter ${name} has no parameter`);
      const cols = 'columns' in f ? f.columns : 'column' in f ? [f.column] : [];
      for (const c of cols) if (!stored.has(c)) throw new Error(`catalog: ${e.id} filter ${name} uses unknown column ${c}`);
    }
    for (const [name, p] of Object.entries(e.params)) {
      for (const x of p.exclusiveWith ?? []) if (!(x in e.params)) throw new Error(`catalog: ${e.id} ${name} excludes unknown ${x}`);
    }
    if (e.family !== 'exchange' && e.abi && e.abi.name !== e.eventName) throw new Error(`catalog: ${e.id} names its event ${e.eventName}, its ABI ${e.abi.name}`);
    if (e.family !== 'exchange') {
      if (e.pricedAmount && (!stored.has(e.pricedAmount.amount) || !stored.has(e.pricedAmount.token))) throw new Error(`catalog: ${e.id} pricedAmount names unknown columns`);
      const named = new Set([...stored, ...e.columns.map((c) => c.name)]);
      for (const leg of e.pricedLegs?.legs ?? []) {
        if (!named.has(leg.amount) || !named.has(leg.token)) throw new Error(`catalog: ${e.id} pricedLegs names unknown columns`);
      }
    }
  }
}
