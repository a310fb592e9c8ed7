/** A small seeded generator (sfc32) for the parts of the demo built in JS: same seed, same data. */
import { createHash } from 'node:crypto';

export interface Random {
  /** Uniform [0, 1). */
  next(): number;
  /** Integer in [0, n). */
  int(n: number): number;
  /** Exponential with the given mean. */
  exp(mean: number): number;
  /** Pareto with scale m and shape alpha, capped at m × cap. */
  pareto(m: number, alpha: number, cap?: number): number;
  /** Zipf-like index in [0, n): low indices are far more common. */
  zipf(n: number): number;
}

export function createRandom(seed: string): Random {
  const h = createHash('sha256').update(seed).digest();
  let a = h.readUInt32LE(0),
    b = h.readUInt32LE(4),
    c = h.readUInt32LE(8),
    d = h.readUInt32LE(12);
  const next = (): number => {
    a >>>= 0;
    b >>>= 0;
    c >>>= 0;
    d >>>= 0;
    const t = (a + b) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    d = (d + 1) | 0;
    const r = (t + d) | 0;
    c = (c + r) | 0;
    return (r >>> 0) / 4294967296;
  };
  for (let i = 0; i < 12; i++) next();
  return {
    next,
    int: (n) => Math.floor(next() * n),
    exp: (mean) => -Math.log(1 - next()) * mean,
    pareto: (m, alpha, cap = 1e6) => Math.min(m / Math.max(1 - next(), 1e-12) ** (1 / alpha), m * cap),
    zipf: (n) => Math.floor(next() ** 3 * n),
  };
}
