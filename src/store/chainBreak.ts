/** Thrown by `store.chain.publish` (./types.ts, ChainBatch.parentHash); ingestion reads it as a reorg. */
export class ChainBreakError extends Error {
  constructor(
    readonly network: string,
    /** The batch's first block. */
    readonly at: number,
  ) {
    super(`${network}: the stored block ${at - 1} is not the parent of block ${at}`);
    this.name = 'ChainBreakError';
  }
}
