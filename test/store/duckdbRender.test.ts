/** The DuckDB renderer of query descriptions: values stay parameters, timestamps bind as TIMESTAMP text, and the result runs. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStore } from '../../src/store/openStore.ts';
import type { Store } from '../../src/store/types.ts';
import { renderDuckDb } from '../../src/store/duckdb/render.ts';
import type { BoundQuery } from '../../src/store/query.ts';

let store: Store;
beforeAll(async () => {
  store = await createStore({ dataDir: null });
  await store.run(`INSERT INTO labels VALUES ('0xaa', 'Big Exchange 1', 'exchange', 'ETH'), ('0xbb', 'Someone', 'person', '')`);
});
afterAll(async () => {
  await store?.close();
});

const evil = `x'); DROP TABLE labels; --`;

describe('renderDuckDb', () => {
  it('writes request values as $name placeholders only and binds timestamps as TIMESTAMP text', () => {
    const q: BoundQuery = {
      query: {
        kind: 'rows',
        table: 'evm_erc20_transfer',
        value: null,
        orderBy: ['block_number'],
        storedInOrder: false,
        columns: [{ name: 'time', expr: { kind: 'iso_time', arg: { kind: 'column', name: 'time' }, millis: false }, type: 'string' }],
        where: [
          { kind: 'compare', left: { kind: 'column', name: 'sender' }, op: '=', right: { kind: 'param', name: 'p0' } },
          { kind: 'compare', left: { kind: 'column', name: 'time' }, op: '>=', right: { kind: 'param', name: 'p1' } },
        ],
      },
      params: { p0: { value: evil, type: 'string' }, p1: { value: Date.UTC(2025, 11, 1, 6), type: 'timestamp' } },
    };
    const r = renderDuckDb(q);
    expect(r.sql).not.toContain('DROP');
    expect(r.sql).toContain('t."sender" = $p0');
    expect(r.sql).toContain('CAST($p1 AS TIMESTAMP)');
    expect(r.params).toEqual({ p0: evil, p1: '2025-12-01 06:00:00.000' });
  });

  it('refuses a description that uses a parameter it does not bind', () => {
    const q: BoundQuery = {
      query: { kind: 'candles', table: 'venue_a_klines', where: [], windowSeconds: { kind: 'param', name: 'p9' } },
      params: {},
    };
    expect(() => renderDuckDb(q)).toThrow(/unbound parameter p9/);
  });

  it('renders a label set that DuckDB runs, scoped to the network or to every network', async () => {
    const q: BoundQuery = {
      query: {
        kind: 'rows',
        table: 'labels',
        value: null,
        orderBy: ['address'],
        storedInOrder: false,
        columns: [{ name: 'address', expr: { kind: 'column', name: 'address' }, type: 'string' }],
        where: [
          {
            kind: 'in_labels',
            arg: { kind: 'column', name: 'address' },
            set: {
              kind: 'label',
              network: { kind: 'param', name: 'p0' },
              substrings: [
                { kind: 'param', name: 'p1' },
                { kind: 'param', name: 'p2' },
              ],
            },
          },
        ],
      },
      params: { p0: { value: 'ETH', type: 'string' }, p1: { value: 'exchange', type: 'string' }, p2: { value: 'someone', type: 'string' } },
    };
    const r = store.render(q, 'json');
    expect(await store.all(r.sql, r.params)).toEqual([{ address: '0xaa' }, { address: '0xbb' }]);
  });
});
