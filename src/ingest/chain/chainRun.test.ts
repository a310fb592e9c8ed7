import { describe, expect, it } from 'vitest';
import { IngestError, resolveRange, type BlockSelection, type ChainEvent } from './chainRun.ts';

/** The range a selection resolves to against a node at head 1000 with 10 confirmations, and the notices it gave. */
async function resolve(sel: BlockSelection, stored: number | null = null) {
  const notices: string[] = [];
  const emit = (e: ChainEvent) => {
    if (e.type === 'notice') notices.push(e.message);
  };
  const range = await resolveRange(sel, { network: 'ETH', head: 1000, confirmations: 10, resume: async () => stored, emit });
  return { range, notices };
}

describe('resolveRange: the blocks --from, --to and --follow choose, for every chain', () => {
  it('stops at head − confirmations by default, and continues after what is stored without --from', async () => {
    expect((await resolve({ from: 5 })).range).toEqual({ lo: 5, hi: 990 });
    expect((await resolve({}, 700)).range).toEqual({ lo: 700, hi: 990 });
  });

  it('cuts a --to above the confirmed head there, with a notice; a --to beyond the head is an error', async () => {
    const cut = await resolve({ from: 5, to: 995 });
    expect(cut.range).toEqual({ lo: 5, hi: 990 });
    expect(cut.notices).toEqual(['stopping at block 990, 10 confirmations behind the head (1000); blocks 991–995 are left for later']);
    await expect(resolve({ from: 5, to: 1001 })).rejects.toThrow(new IngestError("--to 1001 is beyond the node's head, block 1000"));
  });

  it('asks a first run for --from, unless it follows: then it starts after the confirmed head', async () => {
    await expect(resolve({})).rejects.toThrow(/nothing of ETH is stored yet: give --from/);
    expect((await resolve({ follow: true })).range).toEqual({ lo: 991, hi: 990 });
  });

  it('lets a follower name a --to beyond the head, without a notice, backfilling only what is confirmed', async () => {
    expect(await resolve({ from: 5, to: 2000, follow: true })).toEqual({ range: { lo: 5, hi: 990 }, notices: [] });
  });

  it('refuses a --to below the first block', async () => {
    await expect(resolve({ from: 500, to: 400 })).rejects.toThrow('--to 400 is below --from 500');
    await expect(resolve({ to: 400 }, 700)).rejects.toThrow('--to 400 is below --from 700');
  });
});
