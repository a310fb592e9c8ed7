/** The explorer's Follow table as stream events change it: rows add up, an undo takes away exactly the rows above its block. */
import { describe, expect, it } from 'vitest';
import { applyEvent, FOLLOW_START, streamPathOf, type FollowState, type WireEvent } from '../../web/src/follow.ts';

const ev = (event: string, data: unknown, id: string | null = null): WireEvent => ({ event, id, data: JSON.stringify(data) });
const fold = (events: WireEvent[]): FollowState => events.reduce(applyEvent, FOLLOW_START);
const row = (block: number, amount: number) => ({ block_number: block, token: 'USDC', amount });

describe('the Follow table', () => {
  it('appends the rows of each rows event and keeps the last cursor, head and cost', () => {
    const s = fold([
      ev('rows', { from_block: 10, to_block: 11, events: [row(10, 1), row(11, 2)] }, 'c11'),
      ev('progress', { block_number: 11, head: 15, cost: 2 }, 'c11'),
      ev('rows', { from_block: 12, to_block: 12, events: [row(12, 3)] }, 'c12'),
    ]);
    expect(s.rows.map((r) => r.amount)).toEqual([1, 2, 3]);
    expect([s.cursor, s.delivered, s.head, s.cost, s.status]).toEqual(['c12', 12, 15, 2, 'following']);
  });

  it('drops exactly the rows above the undo block and counts them', () => {
    const s = fold([ev('rows', { from_block: 10, to_block: 13, events: [row(10, 1), row(12, 2), row(13, 3), row(13, 4)] }, 'c13'), ev('undo', { block_number: 12, block_hash: '0xab' }, 'c12')]);
    expect(s.rows.map((r) => r.amount)).toEqual([1, 2]);
    expect([s.undone, s.delivered, s.cursor]).toEqual([2, 12, 'c12']);
  });

  it('ends on end, fails with the message of an error event, and ignores event types it does not know', () => {
    expect(fold([ev('end', { block_number: 20 })]).status).toBe('ended');
    const failed = fold([ev('error', { code: 'quota_exceeded', error: 'monthly budget used up' })]);
    expect([failed.status, failed.error]).toEqual(['failed', 'monthly budget used up']);
    expect(fold([ev('heartbeat', { x: 1 })])).toEqual(FOLLOW_START);
  });

  it('offers a stream only on raw event routes of the chains', () => {
    expect(streamPathOf({ path: '/v1/evm/erc20/events/transfer', kind: 'raw', family: 'evm' })).toBe('/v1/evm/erc20/events/transfer/stream');
    expect(streamPathOf({ path: '/v1/btc/native/events/transfer', kind: 'raw', family: 'btc' })).toBe('/v1/btc/native/events/transfer/stream');
    expect(streamPathOf({ path: '/v1/evm/erc20/events/transfer/aggregate', kind: 'aggregate', family: 'evm' })).toBeNull();
    expect(streamPathOf({ path: '/v1/exchange/venue_a/raw_trades', kind: 'raw', family: 'exchange' })).toBeNull();
  });
});
