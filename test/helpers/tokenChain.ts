/**
 * The chain of the live tests: anvil with the test ERC-20 (18 decimals)
 * deployed and 10^24 of it minted to alice, who pays bob and carol.
 */
import type { Hex } from 'viem';
import { startAnvil, type Anvil } from './anvil.ts';
import { connectChain, type Chain } from './chain.ts';

export interface TokenChain {
  readonly anvil: Anvil;
  readonly chain: Chain;
  readonly token: Hex;
  /** The second, third and fourth dev accounts (the first deploys). */
  readonly alice: Hex;
  readonly bob: Hex;
  readonly carol: Hex;
  /** The block of the mint, the token's first Transfer. */
  readonly mintBlock: number;
}

export async function startTokenChain(): Promise<TokenChain> {
  const anvil = await startAnvil({ chainId: 1 });
  try {
    const chain = await connectChain(anvil.url);
    const [, alice, bob, carol] = chain.accounts;
    if (!alice || !bob || !carol) throw new Error('anvil has fewer than four dev accounts');
    const token = await chain.deploy('TestToken', ['Eighteen', 'EIGHT', 18]);
    const minted = await chain.send('TestToken', token, 'mint', [alice, 10n ** 24n]);
    return { anvil, chain, token, alice, bob, carol, mintBlock: Number(BigInt(minted.blockNumber)) };
  } catch (e) {
    // The caller never gets the node to stop.
    await anvil.stop();
    throw e;
  }
}
