import { describe, expect, it } from 'vitest';
import type { IngestProgress } from '../progress.ts';
import { chainProgress } from './chainProgress.ts';

describe('chainProgress', () => {
  it('draws a plan as a bar of its blocks, each batch as the blocks it committed, and reorgs and notices as notes', () => {
    const calls: string[] = [];
    const progress: IngestProgress = {
      start: (label, total) => calls.push(`start ${label} ${total}`),
      advance: (n, unit) => calls.push(`advance ${n} ${unit}`),
      note: (m) => calls.push(`note ${m}`),
      stop: () => calls.push('stop'),
    };
    const draw = chainProgress('TRON', progress);
    draw({
      type: 'plan',
      ranges: [
        { lo: 100, hi: 149 },
        { lo: 200, hi: 209 },
      ],
      blocks: 60,
    });
    draw({ type: 'batch', lo: 100, hi: 149, blocks: 50, events: 7, datasets: { 'tron/native/transfer': 7 } });
    draw({ type: 'reorg', ancestor: 140, depth: 9, detectedAt: 150 });
    draw({ type: 'notice', message: 'retry 1/6' });
    expect(calls).toEqual([
      'start TRON blocks 100–209 60',
      'advance 50 blocks 100–149',
      'note TRON: reorg below block 150; rolled back to the common ancestor 140 and re-ingesting from 141',
      'note retry 1/6',
    ]);
  });
});
