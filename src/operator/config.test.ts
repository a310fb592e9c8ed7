/** The `--config` file of supervised jobs: checked at start, errors name the file and the bad field. */
import { describe, expect, it } from 'vitest';
import { parseServeConfig } from './config.ts';

const parse = (doc: unknown) => parseServeConfig(JSON.stringify(doc), 'chainq.json');

describe('serve --config', () => {
  it('accepts jobs of every source, names unnamed ones, and reads times as dates', () => {
    const c = parse({
      jobs: [
        { name: 'eth', source: 'evm', network: 'ETH', rpc: 'http://node:8545', follow: true, confirmations: 12 },
        { source: 'venue_a', token: ['BTC'], since: '2025-12-01', until: '2025-12-02' },
        { source: 'venue_b', token: ['ETH'], since: 1764547200000, until: '2025-12-02T00:00:00Z', sourceDir: '/data/hl' },
        { source: 'tron', api: 'http://tron:8090', follow: true },
        { source: 'btc', rpc: 'http://u:p@btc:8332', follow: true, confirmations: 3 },
      ],
    });
    expect(c.jobs.map((j) => j.name)).toEqual(['eth', 'venue_a BTC', 'venue_b ETH', 'tron (follow)', 'btc (follow)']);
    expect(c.jobs[1]!.spec).toMatchObject({ since: Date.UTC(2025, 11, 1), until: Date.UTC(2025, 11, 2) });
  });

  it('takes several nodes of one chain as a list in rpc (evm, btc) and api (tron), with their pace options', () => {
    const c = parse({
      jobs: [
        { source: 'evm', network: 'ETH', rpc: ['http://a:8545', 'http://b:8545'], rpcConcurrency: 4, rpcMaxRate: 25 },
        { source: 'tron', api: ['http://t1:8090', 'http://t2:8090'], nodeConcurrency: 8, nodeMaxRate: 10 },
        { source: 'btc', rpc: ['http://u:p@b1:8332', 'http://u:p@b2:8332'] },
      ],
    });
    expect(c.jobs.map((j) => j.spec)).toMatchObject([
      { rpc: ['http://a:8545', 'http://b:8545'], rpcMaxRate: 25 },
      { api: ['http://t1:8090', 'http://t2:8090'], nodeMaxRate: 10 },
      { rpc: ['http://u:p@b1:8332', 'http://u:p@b2:8332'] },
    ]);
    expect(() => parse({ jobs: [{ source: 'evm', network: 'ETH', rpc: [] }] })).toThrow('jobs[0].rpc: must be a URL or a non-empty list of URLs');
    expect(() => parse({ jobs: [{ source: 'tron', api: 5 }] })).toThrow('jobs[0].api: must be a URL or a non-empty list of URLs');
    expect(() => parse({ jobs: [{ source: 'btc', rpc: 'http://x', nodeConcurrency: 1.5 }] })).toThrow('jobs[0].nodeConcurrency: must be integer');
  });

  it('names the bad field', () => {
    expect(() =>
      parse({
        jobs: [
          { source: 'evm', network: 'ETH', rpc: 'http://x' },
          { source: 'evm', network: 'ARB' },
        ],
      }),
    ).toThrow('chainq.json: jobs[1].rpc: required');
    expect(() => parse({ jobs: [{ source: 'evm', network: 'ETH', rpc: 'http://x', confirmation: 3 }] })).toThrow('jobs[0].confirmation: unknown field');
    expect(() => parse({ jobs: [{ source: 'evm', network: 'ETH', rpc: 'http://x', follow: 'yes' }] })).toThrow('jobs[0].follow: must be boolean');
    expect(() => parse({ jobs: [{ source: 'solana' }] })).toThrow('jobs[0].source: must be one of evm, venue_a, venue_b, tron, btc, verify');
    expect(() => parse({ jobs: [{ source: 'venue_a', token: ['BTC'], since: 'yesterday', until: '2025-12-02' }] })).toThrow("jobs[0].since: not a time: 'yesterday'");
    expect(() =>
      parse({
        jobs: [
          { source: 'tron', api: 'http://a', name: 'x' },
          { source: 'btc', rpc: 'http://b', name: 'x' },
        ],
      }),
    ).toThrow("jobs[1].name: 'x' is used twice");
    expect(() => parse({ job: [] })).toThrow('chainq.json: job: unknown field');
    expect(() => parseServeConfig('{', 'chainq.json')).toThrow('chainq.json: not valid JSON');
  });

  it('accepts a periodic sampled verification job, and refuses a verification range missing an end or mixing blocks and times', () => {
    const c = parse({
      jobs: [
        { name: 'eth-check', source: 'verify', network: 'eth', rpc: 'http://b:8545', sample: 200, every: 3600 },
        { source: 'verify', network: 'ETH', rpc: 'http://b', since: '2025-12-01', until: '2025-12-02' },
      ],
    });
    expect(c.jobs[0]!.spec).toEqual({ source: 'verify', network: 'eth', rpc: 'http://b:8545', sample: 200, every: 3600 });
    expect(c.jobs[1]).toMatchObject({ name: 'verify ETH', spec: { since: Date.UTC(2025, 11, 1), until: Date.UTC(2025, 11, 2) } });
    expect(() => parse({ jobs: [{ source: 'verify', network: 'ETH', rpc: 'http://b', blockStart: 5 }] })).toThrow('jobs[0]: blockStart and blockEnd go together');
    expect(() => parse({ jobs: [{ source: 'verify', network: 'ETH', rpc: 'http://b', blockStart: 5, blockEnd: 9, since: '2025-12-01', until: '2025-12-02' }] })).toThrow(
      'jobs[0]: give a block range or a time range, not both',
    );
    expect(() => parse({ jobs: [{ source: 'verify', network: 'ETH', rpc: 'http://b', blockStart: 9, blockEnd: 5 }] })).toThrow('jobs[0].blockEnd: must not be before blockStart');
    expect(() => parse({ jobs: [{ source: 'verify', network: 'ETH', rpc: 'http://b', sample: 0 }] })).toThrow('jobs[0].sample: must be >= 1');
  });

  it("takes a Tron verification's node as api and every other network's as rpc, as their ingestion does", () => {
    const c = parse({
      jobs: [
        { source: 'verify', network: 'tron', api: 'http://t:8090', allContracts: true, sample: 10, every: 600 },
        { source: 'verify', network: 'BTC', rpc: 'http://u:p@b:8332' },
      ],
    });
    expect(c.jobs.map((j) => j.spec)).toEqual([
      { source: 'verify', network: 'tron', api: 'http://t:8090', allContracts: true, sample: 10, every: 600 },
      { source: 'verify', network: 'BTC', rpc: 'http://u:p@b:8332' },
    ]);
    expect(() => parse({ jobs: [{ source: 'verify', network: 'TRON' }] })).toThrow('jobs[0].api: required (the Tron full node HTTP API)');
    expect(() => parse({ jobs: [{ source: 'verify', network: 'TRON', rpc: 'http://t' }] })).toThrow('jobs[0].api: required');
    expect(() => parse({ jobs: [{ source: 'verify', network: 'BTC' }] })).toThrow('jobs[0].rpc: required');
    expect(() => parse({ jobs: [{ source: 'verify', network: 'ETH', rpc: 'http://b', api: 'http://t' }] })).toThrow('jobs[0].api: only Tron');
  });
});
