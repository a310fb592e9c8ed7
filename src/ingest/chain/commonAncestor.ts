/**
 * After a reorg: the newest block at or below `from` whose stored hash the
 * node still agrees with. Every chain adapter walks back the same way; what
 * differs is how it asks the node for a hash and what it says when the fork
 * is deeper than it follows.
 */
import { storedBlockHashes } from '../../store/chainReads.ts';
import type { Store } from '../../store/types.ts';

export interface CommonAncestorOptions {
  readonly store: Store;
  readonly network: string;
  /** The block to start from: the first one suspected of being replaced. */
  readonly from: number;
  /** The node's hash of block n (any case), or null when it has none. */
  readonly nodeHash: (n: number) => Promise<string | null>;
  /** Blocks walked back before giving up. */
  readonly maxDepth: number;
  /** The error to throw past `maxDepth`, given the block reached. */
  readonly tooDeep: (reached: number) => Error;
}

/** The common ancestor (or the first block the store does not hold), and how many stored blocks were replaced above it. */
export async function findCommonAncestor(opts: CommonAncestorOptions): Promise<{ ancestor: number; depth: number }> {
  let n = opts.from;
  for (let depth = 0; ; depth++, n--) {
    const stored = (await storedBlockHashes(opts.store, opts.network, [n])).get(n);
    if (!stored) return { ancestor: n, depth };
    const remote = await opts.nodeHash(n);
    if (remote !== null && remote.toLowerCase() === stored.hash.toLowerCase()) return { ancestor: n, depth };
    if (depth >= opts.maxDepth) throw opts.tooDeep(n);
  }
}
