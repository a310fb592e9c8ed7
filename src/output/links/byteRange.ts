/**
 * The `Range` header of a link download (RFC 9110 §14): one byte range, so
 * that an interrupted download resumes where it stopped. Several ranges in
 * one request are answered with the whole file, which RFC 9110 allows.
 */

/** Inclusive byte positions. */
export interface ByteRange {
  readonly start: number;
  readonly end: number;
}

export type RangeDecision = { readonly kind: 'whole' } | { readonly kind: 'partial'; readonly range: ByteRange } | { readonly kind: 'unsatisfiable' };

const SINGLE = /^bytes=\s*(\d*)\s*-\s*(\d*)\s*$/i;

export function decideRange(header: string | undefined, size: number): RangeDecision {
  if (header === undefined) return { kind: 'whole' };
  const m = SINGLE.exec(header);
  // Another unit, several ranges, or a header that does not parse: ignored, as RFC 9110 says.
  if (!m) return { kind: 'whole' };
  const [, a, b] = m;
  if (a === '' && b === '') return { kind: 'whole' };
  if (a === '') {
    // bytes=-N: the last N bytes.
    const n = Number(b);
    if (n === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'partial', range: { start: Math.max(0, size - n), end: size - 1 } };
  }
  const start = Number(a);
  const end = b === '' ? size - 1 : Math.min(Number(b), size - 1);
  if (b !== '' && Number(b) < start) return { kind: 'whole' };
  if (start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'partial', range: { start, end } };
}
