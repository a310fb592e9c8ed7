/** The Range header of link downloads: one range, suffix and open-ended forms, and what is ignored or refused. */
import { describe, expect, it } from 'vitest';
import { decideRange } from './byteRange.ts';

describe('decideRange', () => {
  it('serves the whole file without a Range header, or with one it does not understand', () => {
    for (const h of [undefined, 'items=0-5', 'bytes=0-1,5-9', 'bytes=abc', 'bytes=-', 'bytes=9-3']) expect(decideRange(h, 100), String(h)).toEqual({ kind: 'whole' });
  });

  it('reads first-last, first- and -suffix, clamped to the file', () => {
    expect(decideRange('bytes=0-9', 100)).toEqual({ kind: 'partial', range: { start: 0, end: 9 } });
    expect(decideRange('bytes=90-', 100)).toEqual({ kind: 'partial', range: { start: 90, end: 99 } });
    expect(decideRange('bytes=90-500', 100)).toEqual({ kind: 'partial', range: { start: 90, end: 99 } });
    expect(decideRange('bytes=-10', 100)).toEqual({ kind: 'partial', range: { start: 90, end: 99 } });
    expect(decideRange('bytes=-500', 100)).toEqual({ kind: 'partial', range: { start: 0, end: 99 } });
    expect(decideRange('BYTES= 5 - 6 ', 100)).toEqual({ kind: 'partial', range: { start: 5, end: 6 } });
  });

  it('refuses a range that starts past the end, or an empty suffix', () => {
    expect(decideRange('bytes=100-', 100)).toEqual({ kind: 'unsatisfiable' });
    expect(decideRange('bytes=-0', 100)).toEqual({ kind: 'unsatisfiable' });
    expect(decideRange('bytes=0-0', 0)).toEqual({ kind: 'unsatisfiable' });
  });
});
