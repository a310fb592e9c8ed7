/**
 * A small chain holding one of everything EVM ingestion reads, built on a
 * fresh anvil from the Solidity fixtures: ERC-20 tokens with 6, 8 and 18
 * decimals (one listed in the token registry, two known only on chain), an
 * ERC-721-style Transfer, a v3 factory with pools (one created before the
 * ingested range), router and direct swaps, a pool the factory never created,
 * two lending markets, the Lido-style contracts, and ETH payments: plain,
 * inside contract calls, failed, created with value, self-destructed and
 * delegated.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseEventLogs, type Abi, type Hex } from 'viem';
import type { Chain, Receipt } from '../helpers/chain.ts';

export interface EvmScenario {
  /** First block to ingest (after the early pool's creation). */
  readonly from: number;
  readonly to: number;
  readonly tokens: { readonly usdx: Hex; readonly wethx: Hex; readonly wbtx: Hex; readonly nft: Hex };
  readonly factory: Hex;
  readonly factoryBlock: number;
  readonly pool500: Hex;
  readonly poolEarly: Hex;
  readonly roguePool: Hex;
  readonly core: Hex;
  readonly prime: Hex;
  readonly steth: Hex;
  readonly queue: Hex;
  readonly payments: Hex;
  readonly reverter: Hex;
  readonly failedTx: Hex;
  readonly users: { readonly deployer: Hex; readonly alice: Hex; readonly bob: Hex; readonly carol: Hex; readonly dave: Hex };
}

const E18 = 10n ** 18n;
const E6 = 10n ** 6n;
const E8 = 10n ** 8n;
const MAX = 2n ** 256n - 1n;
const ZERO = '0x0000000000000000000000000000000000000000';

function poolFrom(chain: Chain, r: Receipt & { logs?: unknown[] }): Hex {
  const logs = parseEventLogs({ abi: chain.artifacts.V3Factory!.abi as Abi, logs: (r as unknown as { logs: never[] }).logs, eventName: 'PoolCreated' });
  return (logs[0]!.args as { pool: string }).pool.toLowerCase() as Hex;
}

export async function buildEvmScenario(chain: Chain): Promise<EvmScenario> {
  const [deployer, alice, bob, carol, dave] = chain.accounts as [Hex, Hex, Hex, Hex, Hex];
  const usdx = await chain.deploy('TestToken', ['USD X', 'USDX', 6]);
  const wethx = await chain.deploy('TestToken', ['Wrapped Ether X', 'WETHX', 18]);
  const wbtx = await chain.deploy('TestToken', ['Wrapped Bitcoin X', 'WBTX', 8]);
  const nft = await chain.deploy('TestNFT');
  const factory = await chain.deploy('V3Factory');
  const factoryBlock = await chain.blockNumber();
  const router = await chain.deploy('V3Router');
  const poolEarly = poolFrom(chain, await chain.send('V3Factory', factory, 'createPool', [wethx, wbtx, 3000]));
  const from = (await chain.blockNumber()) + 1;

  const tok = (addr: Hex, fn: string, args: unknown[], from_: Hex = deployer) => chain.send('TestToken', addr, fn, args, { from: from_ });
  for (const who of [alice, bob]) {
    await tok(usdx, 'mint', [who, 1_000_000n * E6]);
    await tok(wethx, 'mint', [who, 1000n * E18]);
    await tok(wbtx, 'mint', [who, 50n * E8]);
  }
  await tok(usdx, 'transfer', [bob, 12345678n], alice);
  await tok(wethx, 'transfer', [carol, (3n * E18) / 2n], alice);
  await tok(wbtx, 'transfer', [dave, 12345678n], bob);
  await tok(usdx, 'approve', [carol, 500n * E6], alice);
  await tok(usdx, 'transferFrom', [alice, dave, 250n * E6], carol);
  // Beyond 2^128: exact in storage (BIGNUM), a double in responses.
  await tok(usdx, 'mint', [dave, 123456789012345678901234567890123456789n]);
  await chain.send('TestNFT', nft, 'mint', [bob, 42n]);

  // dex: a factory pool, swaps through a router (swapper = transaction sender) and direct, liquidity in and out.
  const pool500 = poolFrom(chain, await chain.send('V3Factory', factory, 'createPool', [wethx, usdx, 500]));
  const wethIs0 = wethx < usdx;
  for (const who of [alice, bob, carol]) {
    for (const t of [wethx, usdx, wbtx]) {
      await tok(t, 'approve', [pool500, MAX], who);
      await tok(t, 'approve', [router, MAX], who);
      await tok(t, 'approve', [poolEarly, MAX], who);
    }
  }
  const pair = (weth: bigint, usd: bigint) => (wethIs0 ? [weth, usd] : [usd, weth]);
  await chain.send('V3Pool', pool500, 'mint', [alice, -887220, 887220, 5n * E18, ...pair(10n * E18, 30_000n * E6)], { from: alice });
  const sqrtP = 4339505179874779489431521n; // ≈ 3000 USDX per WETHX with 18/6 decimals (token0 = WETHX)
  await chain.send('V3Router', router, 'swap', [pool500, wethx, wethIs0, E18, 2990n * E6, sqrtP, -197000], { from: bob });
  await chain.send('V3Router', router, 'swap', [pool500, usdx, !wethIs0, 1500n * E6, E18 / 2n, sqrtP + 10n ** 18n, -196990], { from: alice });
  await tok(wethx, 'transfer', [carol, 2n * E18], alice);
  await chain.send('V3Pool', pool500, 'swap', [carol, wethIs0, E18 / 10n, 299n * E6, sqrtP - 10n ** 18n, -197010], { from: carol });
  await chain.send('V3Pool', pool500, 'burn', [-887220, 887220, E18, ...pair(2n * E18, 6000n * E6)], { from: alice });
  await chain.send('V3Pool', pool500, 'collect', [carol, -887220, 887220, ...pair(E18, 3000n * E6)], { from: alice });
  // The early pool (created before the ingested range) trades too.
  const wethIs0Early = wethx < wbtx;
  await chain.send('V3Pool', poolEarly, 'mint', [bob, -60, 60, E18, ...(wethIs0Early ? [E18, E8] : [E8, E18])], { from: bob });
  await chain.send('V3Pool', poolEarly, 'swap', [bob, true, 1000n, 10n, 2n ** 96n, 0], { from: bob });
  // A pool the factory never created: same events, not ingested.
  const roguePool = await chain.deploy('V3Pool', [wethIs0 ? wethx : usdx, wethIs0 ? usdx : wethx, 500]);
  await tok(wethx, 'approve', [roguePool, MAX], alice);
  await tok(usdx, 'approve', [roguePool, MAX], alice);
  await chain.send('V3Pool', roguePool, 'mint', [alice, -10, 10, E18, ...pair(E18, 3000n * E6)], { from: alice });

  // lending: two markets.
  const core = await chain.deploy('LendingPool');
  const prime = await chain.deploy('LendingPool');
  for (const who of [alice, bob]) for (const p of [core, prime]) for (const t of [usdx, wethx]) await tok(t, 'approve', [p, MAX], who);
  await chain.send('LendingPool', core, 'supply', [usdx, 5000n * E6, alice, 0], { from: alice });
  await chain.send('LendingPool', core, 'supply', [wethx, 2n * E18, bob, 7], { from: alice });
  await chain.send('LendingPool', prime, 'supply', [usdx, 100n * E6, alice, 0], { from: alice });
  await chain.send('LendingPool', core, 'withdraw', [usdx, 1000n * E6, carol], { from: alice });
  await chain.send('LendingPool', core, 'borrow', [wethx, E18 / 2n, 2n, 0, alice], { from: alice });
  await chain.send('LendingPool', core, 'repay', [wethx, E18 / 4n, 2n, alice], { from: alice });
  await chain.send('LendingPool', core, 'repayWithATokens', [usdx, 10n * E6, 2n], { from: bob });
  await chain.send('LendingPool', core, 'flashLoanSimple', [carol, usdx, 100_000n * E6, '0x', 3], { from: alice });
  await chain.send('LendingPool', core, 'liquidationCall', [wethx, usdx, dave, 500n * E6, E18 / 5n, false], { from: bob });

  // staking (L1): submit, request withdrawals, fund the queue, claim (the queue pays ETH from inside a call).
  const steth = await chain.deploy('StETH');
  const queue = await chain.deploy('WithdrawalQueue', [steth]);
  await chain.send('StETH', steth, 'submit', [carol], { from: alice, value: 3n * E18 });
  await chain.send('StETH', steth, 'submit', [ZERO], { from: bob, value: E18 });
  await chain.send('StETH', steth, 'approve', [queue, MAX], { from: alice });
  await chain.send('WithdrawalQueue', queue, 'requestWithdrawals', [[E18, E18 / 2n], alice], { from: alice });
  await chain.pay(deployer, queue, 5n * E18);
  await chain.send('WithdrawalQueue', queue, 'claimWithdrawal', [1n], { from: alice });

  // native: plain payments and value moved inside calls.
  await chain.pay(alice, bob, (3n * E18) / 4n);
  await chain.pay(bob, carol, 1n);
  const payments = await chain.deploy('Payments');
  const reverter = await chain.deploy('Reverter');
  await chain.send('Payments', payments, 'split', [bob, carol], { from: alice, value: E18 });
  await chain.send('Payments', payments, 'payWithFailure', [bob, reverter], { from: alice, value: (4n * E18) / 10n });
  await chain.send('Payments', payments, 'nestedFailure', [dave], { from: alice, value: E18 / 10n });
  await chain.send('Payments', payments, 'createAndDestroy', [dave], { from: alice, value: (3n * E18) / 10n });
  await chain.send('Payments', payments, 'viaDelegate', [], { from: alice, value: E18 / 20n });
  const failed = await chain.send('Payments', payments, 'fail', [], { from: alice, value: E18 / 5n, gas: 100_000n });
  if (failed.status !== '0x0') throw new Error('Payments.fail should have failed');

  return {
    from,
    to: await chain.blockNumber(),
    tokens: { usdx, wethx, wbtx, nft },
    factory,
    factoryBlock,
    pool500,
    poolEarly,
    roguePool,
    core,
    prime,
    steth,
    queue,
    payments,
    reverter,
    failedTx: failed.transactionHash,
    users: { deployer, alice, bob, carol, dave },
  };
}

/** The operator files for the scenario: contract addresses and one registry token. */
export function writeScenarioConfig(dir: string, s: EvmScenario): { protocols: string; tokensCsv: string } {
  fs.mkdirSync(dir, { recursive: true });
  const protocols = path.join(dir, 'protocols.local.json');
  fs.writeFileSync(
    protocols,
    JSON.stringify(
      {
        lending_v3: {
          ETH: [
            { market: 'Core', pool: s.core, deployed_block: null },
            { market: 'Prime', pool: s.prime, deployed_block: null },
          ],
        },
        dex_v3: { ETH: { factory: s.factory, deployed_block: s.factoryBlock } },
        staking: { ETH: { steth: s.steth, withdrawal_queue: s.queue } },
      },
      null,
      2,
    ),
  );
  const tokensCsv = path.join(dir, 'tokens.local.csv');
  fs.writeFileSync(tokensCsv, `symbol,name,aliases,network,address,decimals\nUSDX,USD X,USD-X,ETH,${s.tokens.usdx},6\n`);
  return { protocols, tokensCsv };
}
