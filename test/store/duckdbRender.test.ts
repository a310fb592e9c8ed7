/** The DuckDB renderer of query descriptions: values stay parameters, timestamps bind as TIMESTAMP text, and the result runs. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStore } from '../../src/store/openStore.ts';
import type { Store } from '../../src/store/types.ts';
import { renderDuckDb } from '../../src/store/duckdb/render.ts';
import type { BoundQuery, Condition } from '../../src/store/query.ts';
import { engineSql } from '../helpers/engineSql.ts';

let store: Store;
beforeAll(async () => {
  store = await createStore({ dataDir: null });
  await engineSql(store).run(`INSERT INTO labels VALUES ('0xaa', 'Big Exchange 1', 'exchange', 'ETH'), ('0xbb', 'Someone', 'person', '')`);
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
    expect(await engineSql(store).all(r.sql, r.params)).toEqual([{ address: '0xaa' }, { address: '0xbb' }]);
  });

  it('streams rows stored in order unsorted only under plain conditions: a value list is a list lookup, a label set or a USD value sorts', () => {
    const p = (i: number) => ({ kind: 'param', name: `p${i}` }) as const;
    const params = Object.fromEntries([0, 1, 2, 3, 4, 5, 6].map((i) => [`p${i}`, { value: `0x${i}`, type: 'string' as const }]));
    const rows = (where: readonly Condition[], storedInOrder = true) =>
      renderDuckDb({
        query: {
          kind: 'rows',
          table: 'evm_erc20_transfer',
          value: null,
          orderBy: ['block_number', 'log_index'],
          storedInOrder,
          columns: [{ name: 'sender', expr: { kind: 'column', name: 'sender' }, type: 'string' }],
          where,
        },
        params,
      }).sql;
    const list = { kind: 'in', arg: { kind: 'column', name: 'token_address' }, values: [p(0), p(1), p(2), p(3), p(4), p(5)] } as const;
    // An IN list of several values becomes a hash join in DuckDB, which keeps no order.
    expect(rows([list])).toContain('list_contains([$p0, $p1, $p2, $p3, $p4, $p5], t."token_address")');
    expect(rows([list])).not.toContain('ORDER BY');
    expect(rows([{ kind: 'in', arg: { kind: 'column', name: 'sender' }, values: [p(6)] }])).toContain('t."sender" = $p6');
    // Sorted anyway: the IN list may join.
    expect(rows([list], false)).toContain('t."token_address" IN ($p0, $p1, $p2, $p3, $p4, $p5)');
    expect(rows([list], false)).toContain('ORDER BY t."block_number", t."log_index"');
    const labelled = rows([list, { kind: 'or', args: [{ kind: 'in_labels', arg: { kind: 'column', name: 'sender' }, set: { kind: 'category', network: p(6), categories: [p(5)] } }] }]);
    expect(labelled).toContain('ORDER BY t."block_number", t."log_index"');
  });
});
