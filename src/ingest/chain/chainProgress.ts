/**
 * A chain run's events drawn on an IngestProgress: how `chainq ingest tron`
 * and `ingest btc` show their runs with the same bar as the venue sources
 * (`ingest evm` draws the events itself, with events per second).
 */
import type { IngestProgress } from '../progress.ts';
import type { ChainEvent } from './chainRun.ts';

export function chainProgress(network: string, progress: IngestProgress): (e: ChainEvent) => void {
  return (e) => {
    switch (e.type) {
      case 'plan': {
        const first = e.ranges[0];
        const last = e.ranges[e.ranges.length - 1];
        if (first && last) progress.start(`${network} blocks ${first.lo}–${last.hi}`, e.blocks);
        break;
      }
      case 'batch':
        progress.advance(e.blocks, `blocks ${e.lo}–${e.hi}`);
        break;
      case 'notice':
        progress.note(e.message);
        break;
      case 'reorg':
        progress.note(`${network}: reorg below block ${e.detectedAt}; rolled back to the common ancestor ${e.ancestor} and re-ingesting from ${e.ancestor + 1}`);
        break;
      case 'start':
      case 'caught_up':
        break;
    }
  };
}
