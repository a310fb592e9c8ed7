import { describe, expect, it } from 'vitest';
import { streamRoutes } from '../../catalog/derive/routes.ts';
import { batchOf, sliceOf } from './batchRows.ts';

describe('stream batch rows', () => {
  const lines = ['{"block_number":10,"from_label":"\\"block_number\\":99","v":1}', '{"block_number":10,"v":2}', '{"tx":"0xab","block_number":12,"v":3}', '{"block_number":"15","v":4}'];
  const batch = batchOf(`${lines.join('\n')}\n`);

  it('reads each row its block from the block_number key, never from a string value that spells it', () => {
    expect(batch.blocks).toEqual([10, 10, 12, 15]);
  });

  it('slices the rows of a block range as the JSON array of a rows event, bounds included', () => {
    expect(sliceOf(batch, 10, 11)).toEqual({ events: `[${lines[0]},${lines[1]}]`, count: 2 });
    expect(sliceOf(batch, 11, 15)).toEqual({ events: `[${lines[2]},${lines[3]}]`, count: 2 });
    expect(sliceOf(batch, 13, 14)).toEqual({ events: '[]', count: 0 });
    expect(JSON.parse(sliceOf(batch, 0, 100).events)).toHaveLength(4);
  });

  it('an empty batch slices to no rows', () => {
    expect(sliceOf(batchOf(''), 1, 5)).toEqual({ events: '[]', count: 0 });
  });

  it('refuses a row without a block_number rather than placing it in a wrong step', () => {
    expect(() => batchOf('{"number":3}\n')).toThrow(/block_number/);
  });

  it('every stream route answers rows with a block_number column, which the steps are cut by', () => {
    for (const r of streamRoutes())
      expect(
        r.raw.endpoint.columns.map((c) => c.name),
        r.path,
      ).toContain('block_number');
  });
});
