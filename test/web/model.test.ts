/**
 * The explorer's pure parts, against the server's real OpenAPI document: the
 * catalog it reads, the query ↔ address round trip, exclusive parameters, CSV
 * reading and the chart's series.
 */
import { describe, expect, it } from 'vitest';
import { openApiDocument } from '../../src/catalog/derive/openapi.ts';
import { dataRoutes } from '../../src/catalog/derive/routes.ts';
import { catalogFromOpenApi, type OpenApiDocument } from '../../web/src/catalog.ts';
import { chartDataOf, chartSummary } from '../../web/src/chartData.ts';
import { excludedBy, fromTarget, toTarget } from '../../web/src/query.ts';
import { rowsFromCsv, rowsFromJson } from '../../web/src/rows.ts';
import { clientMethod, pythonSnippet } from '../../web/src/snippets.ts';
import { ROUTES } from '../../src/client/routes.generated.ts';

const catalog = catalogFromOpenApi(JSON.parse(JSON.stringify(openApiDocument())) as OpenApiDocument);
const route = (path: string) => catalog.routes.find((r) => r.path === path)!;

describe('the explorer model', () => {
  it('reads every served data route, with its parameters, from /openapi.json', () => {
    const served = dataRoutes();
    expect(catalog.routes.map((r) => r.path).sort()).toEqual(served.map((r) => r.path).sort());
    for (const r of served)
      expect(
        route(r.path).params.map((p) => p.name),
        r.path,
      ).toEqual(Object.keys(r.params));
    const involving = route('/v1/evm/erc20/events/transfer').params.find((p) => p.name === 'involving')!;
    expect(involving).toMatchObject({ list: true, exclusiveWith: ['sender', 'receiver'], description: 'Address as sender or receiver.' });
    expect(catalog.paths.has('/v1/usage')).toBe(true);
  });

  it('names the same client methods as the generated client', () => {
    const methods = new Set(Object.keys(ROUTES));
    for (const r of catalog.routes) expect(methods.has(clientMethod(r)), r.path).toBe(true);
  });

  it('writes the Python snippet as a chainq client call with typed keyword arguments, leaving format and link to the client', () => {
    const swap = route('/v1/evm/dex_v3/events/swap/aggregate');
    const code = pythonSnippet('http://127.0.0.1:8080', swap, {
      network: 'ETH',
      symbol0: 'WETH',
      symbol1: 'USDC',
      fee: '500',
      block_start: '1',
      block_end: '2',
      group_by: 'time',
      period: '1h',
      with_value: 'true',
      format: 'csv',
      link: 'true',
    });
    expect(code).toContain('c = chainq.Client("http://127.0.0.1:8080", api_key=os.environ["CHAINQ_KEY"])');
    expect(code).toContain('df = c.aggregate("evm/dex_v3/swap", network="ETH", block_start=1, block_end=2, symbol0="WETH", symbol1="USDC", fee=500, ');
    expect(code).toContain('with_value=True');
    expect(code).toContain('aggregate=True))  # priced, not charged');
    expect(code).not.toMatch(/format=|link=/);
    // A custom dataset's address input may be named like a Python keyword.
    const erc20 = route('/v1/evm/erc20/events/transfer');
    const custom = { ...erc20, dataset: 'evm/custom/vault/moved', params: [...erc20.params, { ...erc20.params[0]!, name: 'from', type: 'string' as const }] };
    expect(pythonSnippet('http://h', custom, { network: 'ETH', from: '0xab' })).toContain('c.events("evm/custom/vault/moved", network="ETH", **{"from": "0xab"})');
  });

  it('turns a query into its address and back', () => {
    const target = '/v1/evm/dex_v3/events/swap/aggregate?network=ETH&block_start=1&block_end=2&symbol0=WETH&symbol1=USDC&fee=500&group_by=time&period=1h';
    const q = fromTarget(catalog, target)!;
    expect(q.route.kind).toBe('aggregate');
    expect(toTarget(q)).toBe(target);
    expect(toTarget({ route: q.route, values: { ...q.values, fee: '  ' } })).not.toContain('fee=');
    expect(fromTarget(catalog, '/v1/nope?x=1')).toBeNull();
  });

  it('disables a parameter that a filled one excludes, and a range kind while the other is given', () => {
    const r = route('/v1/evm/erc20/events/transfer');
    expect(excludedBy(r, { involving: '0x1' }, 'sender')).toEqual(['involving']);
    expect(excludedBy(r, { sender: '0x1' }, 'involving')).toEqual(['sender']);
    expect(excludedBy(r, { block_start: '5' }, 'since')).toEqual(['block_start']);
    expect(excludedBy(r, {}, 'sender')).toEqual([]);
  });

  it('reads RFC 4180 CSV: quotes, doubled quotes, commas and line breaks inside fields, empty as null', () => {
    const rows = rowsFromCsv('a,b,c\r\n1,"x, ""y""",\n2,"two\nlines",0.5\n');
    expect(rows.columns).toEqual(['a', 'b', 'c']);
    expect(rows.rows).toEqual([
      [1, 'x, "y"', null],
      [2, 'two\nlines', 0.5],
    ]);
  });

  it('makes one series per value column and per group token, on the bucket start axis', () => {
    const rows = rowsFromJson([
      { time: 3600, token: 'USDT', agg_amount: 5, count: 2 },
      { time: 3600, token: 'TRX', agg_amount: 7, count: 1 },
      { time: 7200, token: 'USDT', agg_amount: 1, count: 1 },
    ]);
    const d = chartDataOf(rows)!;
    expect(d).toEqual({
      axis: 'time',
      x: [3600, 7200],
      series: [
        { label: 'agg_amount (USDT)', values: [5, 1] },
        { label: 'count (USDT)', values: [2, 1] },
        { label: 'agg_amount (TRX)', values: [7, null] },
        { label: 'count (TRX)', values: [1, null] },
      ],
    });
    expect(chartSummary(d)).toMatch(/^2 buckets from 1970-01-01T01:00:00Z to 1970-01-01T02:00:00Z; 4 series: agg_amount \(USDT\) from 1 to 5/);
    const blocks = chartDataOf(rowsFromJson([{ block_start: 100, block_end: 200, agg_WETH_sold: 1.5, count: 3 }]))!;
    expect(blocks).toMatchObject({ axis: 'block', x: [100], series: [{ label: 'agg_WETH_sold' }, { label: 'count' }] });
  });
});
