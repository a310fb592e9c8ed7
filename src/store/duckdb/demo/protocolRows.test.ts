/**
 * Each protocol's demo description fits its catalog: every event it
 * describes is one of its datasets, and it gives a value to each column of
 * that dataset's table and to no other, so the INSERT it renders names every
 * column.
 */
import { describe, expect, it } from 'vitest';
import { LOG_KEY_VALUES } from '../../../protocols/demo.ts';
import { protocolRegistry } from '../../../protocols/index.ts';
import { columnValues, endpointOf } from './protocolRows.ts';

describe('protocol demo descriptions', () => {
  it('describe only their protocol’s datasets, each column of its table by name', () => {
    const described = protocolRegistry.protocols.flatMap((p) =>
      (p.demo?.events ?? []).map((e) => {
        const endpoint = endpointOf(p, e.event);
        expect(
          columnValues(endpoint, e).map((v) => v.column),
          `${endpoint.id} ${e.network}`,
        ).toEqual(endpoint.table.columns.map((c) => c.name));
        return endpoint.id;
      }),
    );
    // Every built-in dataset has demo rows somewhere.
    expect(new Set(described)).toEqual(new Set(protocolRegistry.endpoints.map((e) => e.id)));
  });

  it('refuses a description that misses a column or names one the table does not have', () => {
    const erc20 = protocolRegistry.protocols.find((p) => p.demo?.events.some((e) => 'token_address' in e.columns));
    const e = erc20?.demo?.events[0];
    if (!erc20 || !e) throw new Error('no protocol with a token column');
    const endpoint = endpointOf(erc20, e.event);
    const { token_address: _dropped, ...rest } = e.columns;
    expect(() => columnValues(endpoint, { ...e, columns: { ...rest, tokn: LOG_KEY_VALUES.network } })).toThrow(/no value for token_address, no column tokn/);
    expect(() => endpointOf(erc20, 'no_such_event')).toThrow(/has no dataset for event no_such_event/);
  });
});
