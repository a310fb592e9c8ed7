/**
 * `chainq ingest evm` end to end against a real anvil: the scenario chain
 * (evmScenario.ts) is ingested with the CLI, then every served EVM endpoint
 * must return exactly what the node's own eth_getLogs and call traces show,
 * field by field.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hex } from 'viem';
import { createStore } from '../../src/store/openStore.ts';
import type { Store } from '../../src/store/types.ts';
import { startAnvil, type Anvil } from '../helpers/anvil.ts';
import { connectChain, type Chain } from '../helpers/chain.ts';
import { runCli } from '../helpers/cli.ts';
import { ingestEvmArgs } from '../helpers/ingestEvm.ts';
import { startServer, type Server } from '../helpers/server.ts';
import { buildEvmScenario, writeScenarioConfig, type EvmScenario } from './evmScenario.ts';
import { eventAbi, lower, nodeTruth, units, type Decoded, type Truth } from './nodeTruth.ts';
import { dumpStore } from './storeDump.ts';
import { engineSql } from '../helpers/engineSql.ts';

type ApiRow = Record<string, unknown>;

/**
 * The API runs as a real `chainq serve` process on a copy of the ingested data
 * directory; the test reads stored columns itself from the original.
 */
interface Served {
  store: Store;
  server: Server;
  apiDir: string;
}

async function serve(dir: string): Promise<Served> {
  const apiDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-api-'));
  for (const f of fs.readdirSync(dir)) if (f.startsWith('chainq.duckdb')) fs.copyFileSync(path.join(dir, f), path.join(apiDir, f));
  const server = await startServer(apiDir);
  const store = await createStore({ dataDir: dir, readOnly: true, threads: 2 });
  return { store, server, apiDir };
}

async function unserve(s: Served | undefined): Promise<void> {
  if (!s) return;
  await s.server.stop();
  await s.store.close();
  fs.rmSync(s.apiDir, { recursive: true, force: true });
}

async function api(s: Served, url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  return s.server.get(url);
}

async function events(s: Served, url: string): Promise<ApiRow[]> {
  const r = await api(s, url);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.events as ApiRow[];
}

describe('ingest evm (ETH) against anvil', () => {
  let anvil: Anvil;
  let chain: Chain;
  let s: EvmScenario;
  let dir: string;
  let cfg: { protocols: string; tokensCsv: string };
  let served: Served;
  let truth: Truth;
  let range: string;
  let ingestArgs: string[];

  beforeAll(async () => {
    anvil = await startAnvil({ chainId: 1 });
    chain = await connectChain(anvil.url);
    s = await buildEvmScenario(chain);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-ingest-'));
    cfg = writeScenarioConfig(dir, s);
    // The operator lists one token in the registry; the others are known only from the chain.
    expect((await runCli(['tokens', 'import', cfg.tokensCsv, '--data', dir])).code).toBe(0);
    ingestArgs = ingestEvmArgs({ rpc: anvil.url, from: s.from, to: s.to, data: dir, protocols: cfg.protocols });
    const r = await runCli(ingestArgs);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^done: \d+ blocks, \d+ events/);
    served = await serve(dir);
    truth = nodeTruth(chain, s.from, s.to);
    range = `network=ETH&block_start=${s.from}&block_end=${s.to}&verbose=true`;
  });

  afterAll(async () => {
    await unserve(served);
    await anvil?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  const verbose = async (d: Decoded, name: string) => ({
    time: await truth.time(d.block),
    network: 'ETH',
    tx_id: d.log.transactionHash,
    log_index: d.logIndex,
    name,
  });

  it('erc20: a registry token by symbol returns every 3-topic Transfer the node logged, field by field', async () => {
    const logs = await truth.logs(eventAbi(chain, 'TestToken', 'Transfer'), s.tokens.usdx);
    const expected = await Promise.all(
      logs.map(async (d) => ({
        block_number: d.block,
        token: 'USDX',
        sender: lower(d.args.from),
        receiver: lower(d.args.to),
        amount: units(d.args.value as bigint, 6),
        ...(await verbose(d, 'Transfer')),
      })),
    );
    expect(expected.length).toBeGreaterThan(8);
    expect(await events(served, `/v1/evm/erc20/events/transfer?${range}&token=usdx`)).toEqual(expected);
  });

  it('erc20: a token outside the registry is scaled by its decimals() and named by its symbol()', async () => {
    for (const [address, symbol, decimals] of [
      [s.tokens.wbtx, 'WBTX', 8],
      [s.tokens.wethx, 'WETHX', 18],
      [s.steth, 'STETH', 18],
    ] as const) {
      const logs = await truth.logs(eventAbi(chain, 'TestToken', 'Transfer'), address);
      const expected = await Promise.all(
        logs.map(async (d) => ({
          block_number: d.block,
          token: symbol,
          sender: lower(d.args.from),
          receiver: lower(d.args.to),
          amount: units(d.args.value as bigint, decimals),
          ...(await verbose(d, 'Transfer')),
        })),
      );
      expect(expected.length).toBeGreaterThan(0);
      expect(await events(served, `/v1/evm/erc20/events/transfer?${range}&token=${address}`)).toEqual(expected);
    }
  });

  it('erc20: amounts keep every digit in storage (BIGNUM), beyond 2^128', async () => {
    const [row] = await engineSql(served.store).all<{ raw: string }>(`SELECT max(amount_raw)::VARCHAR AS raw FROM evm_erc20_transfer`);
    expect(row?.raw).toBe('123456789012345678901234567890123456789');
  });

  it('erc20: an ERC-721 Transfer (token id as a fourth topic) is not an ERC-20 transfer', async () => {
    const nodeLogs = await chain.rpc<unknown[]>('eth_getLogs', [{ fromBlock: `0x${s.from.toString(16)}`, toBlock: `0x${s.to.toString(16)}`, address: s.tokens.nft }]);
    expect(nodeLogs.length).toBe(1);
    expect(await events(served, `/v1/evm/erc20/events/transfer?${range}&token=${s.tokens.nft}`)).toEqual([]);
  });

  it('erc20: the total matches the node: every 3-topic, 32-byte Transfer of any contract and nothing else', async () => {
    const all = (await truth.logs(eventAbi(chain, 'TestToken', 'Transfer'))).filter((d) => d.log.topics.length === 3);
    const [n] = await engineSql(served.store).all<{ n: bigint }>(`SELECT count(*) AS n FROM evm_erc20_transfer WHERE network = 'ETH'`);
    expect(Number(n!.n)).toBe(all.length);
  });

  it('lending_v3: each event of each market, field by field, with eth_market_type selecting the market', async () => {
    const dec: Record<string, number> = { [s.tokens.usdx]: 6, [s.tokens.wethx]: 18 };
    const sym: Record<string, string> = { [s.tokens.usdx]: 'USDX', [s.tokens.wethx]: 'WETHX' };
    const cases: [string, string, (a: Record<string, unknown>) => ApiRow][] = [
      [
        'deposit',
        'Supply',
        (a) => ({
          user: lower(a.user),
          token: sym[lower(a.reserve)],
          amount: units(a.amount as bigint, dec[lower(a.reserve)]!),
          on_behalf_of: lower(a.onBehalfOf),
          referral_code: Number(a.referralCode),
        }),
      ],
      ['withdraw', 'Withdraw', (a) => ({ user: lower(a.user), token: sym[lower(a.reserve)], amount: units(a.amount as bigint, dec[lower(a.reserve)]!), recipient: lower(a.to) })],
      [
        'borrow',
        'Borrow',
        (a) => ({
          user: lower(a.user),
          token: sym[lower(a.reserve)],
          amount: units(a.amount as bigint, dec[lower(a.reserve)]!),
          on_behalf_of: lower(a.onBehalfOf),
          interest_rate_mode: Number(a.interestRateMode),
          borrow_rate: units(a.borrowRate as bigint, 27),
        }),
      ],
      [
        'repay',
        'Repay',
        (a) => ({ user: lower(a.user), token: sym[lower(a.reserve)], amount: units(a.amount as bigint, dec[lower(a.reserve)]!), repayer: lower(a.repayer), use_a_tokens: a.useATokens }),
      ],
      [
        'flashloan',
        'FlashLoan',
        (a) => ({
          initiator: lower(a.initiator),
          token: sym[lower(a.asset)],
          amount: units(a.amount as bigint, dec[lower(a.asset)]!),
          premium: units(a.premium as bigint, dec[lower(a.asset)]!),
          target: lower(a.target),
        }),
      ],
      [
        'liquidation',
        'LiquidationCall',
        (a) => ({
          owner: lower(a.user),
          liquidator: lower(a.liquidator),
          debt_token: sym[lower(a.debtAsset)],
          collateral_token: sym[lower(a.collateralAsset)],
          debt_to_cover: units(a.debtToCover as bigint, dec[lower(a.debtAsset)]!),
          liquidated_collateral: units(a.liquidatedCollateralAmount as bigint, dec[lower(a.collateralAsset)]!),
        }),
      ],
    ];
    let total = 0;
    for (const [market, pool] of [
      ['Core', s.core],
      ['Prime', s.prime],
    ] as const) {
      for (const [event, name, shape] of cases) {
        const logs = await truth.logs(eventAbi(chain, 'LendingPool', name), pool);
        const expected = await Promise.all(logs.map(async (d) => ({ block_number: d.block, ...shape(d.args), ...(await verbose(d, name)) })));
        const got = await events(served, `/v1/evm/lending_v3/events/${event}?${range}&eth_market_type=${market}`);
        // Column order is the catalog's: compare as objects, and the key lists separately.
        expect(got).toEqual(expected);
        total += got.length;
      }
    }
    expect(total).toBe(9); // Core: 2 supplies, withdraw, borrow, 2 repays, flash loan, liquidation; Prime: 1 supply
  });

  it('dex_v3: swaps of factory pools, swapper = the transaction sender, sold/bought from the signs of amount0/amount1', async () => {
    const pools = [
      [s.pool500, 'symbol0=WETHX&symbol1=USDX&fee=500'],
      [s.poolEarly, 'symbol0=wbtx&symbol1=wethx&fee=3000'],
    ] as const;
    for (const [pool, pair] of pools) {
      const rows = (await served.store.chainReads.pools('ETH')).filter((r) => r.pool_address === pool);
      const p = rows[0]!;
      const logs = await truth.logs(eventAbi(chain, 'V3Pool', 'Swap'), pool);
      const expected = await Promise.all(
        logs.map(async (d) => {
          const a0 = d.args.amount0 as bigint;
          const a1 = d.args.amount1 as bigint;
          const sold0 = a0 > 0n;
          return {
            block_number: d.block,
            pool_address: pool,
            swapper: await truth.txSender(d.log.transactionHash),
            tokenSold: sold0 ? p.token0 : p.token1,
            tokenBought: sold0 ? p.token1 : p.token0,
            amountSold: sold0 ? units(a0, p.token0_decimals) : units(a1, p.token1_decimals),
            amountBought: sold0 ? -units(a1, p.token1_decimals) : -units(a0, p.token0_decimals),
            ...(await verbose(d, 'Swap')),
          };
        }),
      );
      expect(expected.length).toBeGreaterThan(0);
      expect(await events(served, `/v1/evm/dex_v3/events/swap?${range}&${pair}`)).toEqual(expected);
    }
    // A router swap: the pool's sender is the router, the swapper is who sent the transaction.
    const [routed] = await engineSql(served.store).all<{ sender: string; swapper: string; recipient: string }>(`SELECT sender, swapper, recipient FROM evm_dex_v3_swap ORDER BY block_number LIMIT 1`);
    expect(routed!.sender).not.toBe(routed!.swapper);
    expect(routed!.swapper).toBe(routed!.recipient);
  });

  it('dex_v3: stored price, liquidity and tick are the Swap fields; sqrt_based_price is token1 per token0 in token units', async () => {
    const logs = await truth.logs(eventAbi(chain, 'V3Pool', 'Swap'), s.pool500);
    const rows = await engineSql(served.store).all<Record<string, unknown>>(`SELECT * FROM evm_dex_v3_swap WHERE pool_address = $p ORDER BY block_number, log_index`, { p: s.pool500 });
    expect(rows.map((r) => [r.sqrt_price_x96, r.liquidity_raw, r.liquidity, r.tick, r.amount0_raw, r.amount1_raw, r.sender, r.recipient])).toEqual(
      logs.map((d) => [d.args.sqrtPriceX96, d.args.liquidity, Number(d.args.liquidity), d.args.tick, d.args.amount0, d.args.amount1, lower(d.args.sender), lower(d.args.recipient)]),
    );
    for (const r of rows) {
      const ratio = Number(r.sqrt_price_x96 as bigint) / 2 ** 96;
      expect(r.sqrt_based_price).toBeCloseTo(ratio * ratio * 10 ** (Number(r.token0_decimals) - Number(r.token1_decimals)), 30);
    }
  });

  it('dex_v3: Mint, Burn and Collect as deposit, withdraw and collect, field by field', async () => {
    const [p] = (await served.store.chainReads.pools('ETH')).filter((r) => r.pool_address === s.pool500);
    const amounts = (a: Record<string, unknown>) => ({
      amount0: units(a.amount0 as bigint, p!.token0_decimals),
      amount1: units(a.amount1 as bigint, p!.token1_decimals),
      token0: p!.token0,
      token1: p!.token1,
    });
    const cases: [string, string, (a: Record<string, unknown>) => ApiRow][] = [
      ['deposit', 'Mint', (a) => ({ sender: lower(a.sender), owner: lower(a.owner), ...amounts(a) })],
      ['withdraw', 'Burn', (a) => ({ owner: lower(a.owner), ...amounts(a) })],
      ['collect', 'Collect', (a) => ({ owner: lower(a.owner), recipient: lower(a.recipient), ...amounts(a) })],
    ];
    for (const [event, name, shape] of cases) {
      const logs = await truth.logs(eventAbi(chain, 'V3Pool', name), s.pool500);
      const expected = await Promise.all(logs.map(async (d) => ({ block_number: d.block, pool_address: s.pool500, ...shape(d.args), ...(await verbose(d, name)) })));
      expect(expected.length).toBe(1);
      expect(await events(served, `/v1/evm/dex_v3/events/${event}?${range}&symbol0=USDX&symbol1=WETHX&fee=500`)).toEqual(expected);
    }
  });

  it('dex_v3: pools come from the factory (one created before the range was found by the discovery scan); a pool it never created is ignored', async () => {
    // By creation block, pools of no known block last.
    const pools = (await served.store.chainReads.pools('ETH')).sort((a, b) => Number(a.created_block ?? Infinity) - Number(b.created_block ?? Infinity));
    expect(pools.map((p) => p.pool_address).sort()).toEqual([s.pool500, s.poolEarly].sort());
    expect(Number(pools[0]!.created_block)).toBeLessThan(s.from);
    const rogue = await engineSql(served.store).all(`SELECT * FROM evm_dex_v3_deposit WHERE pool_address = $p`, { p: s.roguePool });
    expect(rogue).toEqual([]);
  });

  it('staking: Submitted, WithdrawalRequested and WithdrawalClaimed, field by field', async () => {
    const cases: [string, string, Hex, (a: Record<string, unknown>) => ApiRow][] = [
      ['deposit', 'Submitted', s.steth, (a) => ({ sender: lower(a.sender), referral: lower(a.referral), minted_amount: units(a.amount as bigint, 18), minted_token: 'STETH' })],
      [
        'withdrawal_request',
        'WithdrawalRequested',
        s.queue,
        (a) => ({
          request_id: Number(a.requestId),
          requestor: lower(a.requestor),
          owner: lower(a.owner),
          burned_amount: units(a.amountOfStETH as bigint, 18),
          burned_token: 'STETH',
        }),
      ],
      [
        'withdrawal_claimed',
        'WithdrawalClaimed',
        s.queue,
        (a) => ({
          request_id: Number(a.requestId),
          receiver: lower(a.receiver),
          owner: lower(a.owner),
          withdraw_amount: units(a.amountOfETH as bigint, 18),
          withdraw_token: 'ETH',
        }),
      ],
    ];
    for (const [event, name, address, shape] of cases) {
      const logs = await truth.logs(eventAbi(chain, name === 'Submitted' ? 'StETH' : 'WithdrawalQueue', name), address);
      const expected = await Promise.all(logs.map(async (d) => ({ block_number: d.block, ...shape(d.args), ...(await verbose(d, name)) })));
      expect(expected.length).toBeGreaterThan(0);
      expect(await events(served, `/v1/evm/staking/events/${event}?${range}`)).toEqual(expected);
    }
  });

  it('native: transaction values and internal calls exactly as the call traces show (failed frames, delegatecalls and failed transactions left out)', async () => {
    const nodeTransfers = await truth.nativeTransfers();
    const expected = await Promise.all(
      nodeTransfers.map(async (t) => ({
        block_number: t.block,
        token: 'ETH',
        sender: t.from,
        receiver: t.to,
        amount: units(t.value, 18),
        time: await truth.time(t.block),
        network: 'ETH',
        tx_id: t.tx,
        log_index: null,
        name: t.traceIndex === 0 ? 'transfer' : 'internal_transfer',
      })),
    );
    const got = await events(served, `/v1/evm/native/events/transfer?${range}`);
    expect(got).toEqual(expected);
    // The cases the scenario built, spelled out.
    const { alice, bob, carol, dave } = s.users;
    const has = (from: string, to: string, amount: number) => got.some((r) => r.sender === from && r.receiver === to && r.amount === amount);
    expect(has(alice, bob, 0.75)).toBe(true); // plain payment
    expect(has(s.payments, bob, 0.5) && has(s.payments, carol, 0.5)).toBe(true); // inside a contract call
    expect(has(s.queue, alice, 1)).toBe(true); // the withdrawal queue paying a claim
    expect(got.some((r) => r.receiver === s.reverter)).toBe(false); // a reverted inner call
    expect(has(s.payments, dave, 0.01)).toBe(false); // a payment inside a frame that reverted
    expect(got.some((r) => r.tx_id === s.failedTx)).toBe(false); // a failed transaction moves nothing
    expect(got.filter((r) => r.receiver === dave && r.amount === 0.3).length).toBe(1); // the self-destruct payout
  });

  it('native: debug_traceBlockByHash gives the same rows as trace_block; without traces only transaction values are stored, and coverage says so', async () => {
    const base = ingestEvmArgs({ rpc: anvil.url, from: s.from, to: s.to, only: 'native', protocols: cfg.protocols });
    const viaTrace = await engineSql(served.store).all(`SELECT * FROM evm_native_transfer ORDER BY block_number, tx_index, trace_index`);
    for (const [traces, expectInternal] of [
      ['debug_trace', true],
      ['off', false],
    ] as const) {
      const other = fs.mkdtempSync(path.join(os.tmpdir(), `chainq-native-${traces}-`));
      try {
        const r = await runCli([...base, '--data', other, '--traces', traces]);
        expect(r.code, r.stderr).toBe(0);
        expect(r.logs.find((l) => l.event === 'start')!.traces).toBe(traces === 'off' ? false : traces);
        const store = await createStore({ dataDir: other, readOnly: true });
        try {
          const rows = await engineSql(store).all(`SELECT * FROM evm_native_transfer ORDER BY block_number, tx_index, trace_index`);
          expect(rows).toEqual(expectInternal ? viaTrace : viaTrace.filter((x) => (x as { trace_index: number }).trace_index === 0));
          // The dataset is covered either way; whether internal transfers are in it has its own coverage.
          const cov = await engineSql(store).all<{ dataset: string }>(`SELECT dataset FROM coverage WHERE scope = 'ETH' ORDER BY 1`);
          expect(cov.map((c) => c.dataset)).toEqual(expectInternal ? ['evm/native/transfer', 'evm/native/transfer:traces'] : ['evm/native/transfer']);
        } finally {
          await store.close();
        }
      } finally {
        fs.rmSync(other, { recursive: true, force: true });
      }
    }
  });

  it('blocks: every block of the range with its time, hash and parent hash', async () => {
    const rows = await engineSql(served.store).all<{ number: bigint; hash: string; parent_hash: string; time: Date }>(`SELECT * FROM blocks WHERE network = 'ETH' ORDER BY number`);
    expect(rows.map((r) => Number(r.number))).toEqual(Array.from({ length: s.to - s.from + 1 }, (_, i) => s.from + i));
    for (const r of [rows[0]!, rows[rows.length - 1]!]) {
      const b = await chain.rpc<{ hash: string; parentHash: string; timestamp: Hex }>('eth_getBlockByNumber', [`0x${Number(r.number).toString(16)}`, false]);
      expect([r.hash, r.parent_hash, r.time.getTime()]).toEqual([b.hash, b.parentHash, Number(BigInt(b.timestamp)) * 1000]);
    }
  });

  it('gaps: a range reaching past what was ingested is refused with the missing blocks, never answered as empty', async () => {
    const r = await api(served, `/v1/evm/erc20/events/transfer?network=ETH&token=USDX&block_start=${s.from - 3}&block_end=${s.to + 5}`);
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('invalid_range');
    expect(r.body.missing_blocks).toEqual([
      [s.from - 3, s.from - 1],
      [s.to + 1, s.to + 5],
    ]);
  });

  it('idempotent: ingesting the range again, whole or in part, leaves the store exactly as it was', async () => {
    const before = await dumpStore(served.store);
    await unserve(served);
    const mid = Math.floor((s.from + s.to) / 2);
    for (const args of [
      [...ingestArgs, '--force'],
      [...ingestArgs.map((a) => (a === String(s.from) ? String(mid) : a)), '--force', '--batch-blocks', '7'],
    ]) {
      const r = await runCli(args);
      expect(r.code, r.stderr).toBe(0);
    }
    // A plain rerun finds nothing missing and fetches nothing.
    const again = await runCli(ingestArgs);
    expect(again.stdout).toMatch(/^done: 0 blocks, 0 events/);
    served = await serve(dir);
    expect(await dumpStore(served.store)).toBe(before);
    // Rows re-appended behind the tip are flagged, so that queries sort them.
    expect((await engineSql(served.store).all(`SELECT dataset FROM dataset_order WHERE scope = 'ETH' AND unordered`)).length).toBeGreaterThan(0);
  });
});

describe('ingest evm (an L2) against anvil: the wstETH bridge', () => {
  let anvil: Anvil;
  let dir: string;
  let served: Served;

  afterAll(async () => {
    await unserve(served);
    await anvil?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('DepositFinalized and WithdrawalInitiated of the configured bridge become l2_deposit and l2_withdrawal_request, other tokens left out', async () => {
    anvil = await startAnvil({ chainId: 10 }); // OP Mainnet
    const chain = await connectChain(anvil.url);
    const [, alice, bob] = chain.accounts as [Hex, Hex, Hex];
    const l1Wsteth = '0x7f39c581f595b53c5cb19bd0b3f8da6c935e2ca0';
    const wsteth = await chain.deploy('TestToken', ['Wrapped liquid staked Ether 2.0', 'wstETH', 18]);
    const other = await chain.deploy('TestToken', ['Other', 'OTHER', 18]);
    const bridge = await chain.deploy('L2TokenBridge', [l1Wsteth, wsteth]);
    const from = (await chain.blockNumber()) + 1;
    await chain.send('L2TokenBridge', bridge, 'finalizeDeposit', [l1Wsteth, wsteth, alice, bob, 25n * 10n ** 17n, '0x']);
    await chain.send('L2TokenBridge', bridge, 'finalizeDeposit', [l1Wsteth, other, alice, bob, 10n ** 18n, '0x']);
    await chain.send('L2TokenBridge', bridge, 'withdrawTo', [wsteth, alice, 10n ** 18n, 0, '0x'], { from: bob });
    const to = await chain.blockNumber();

    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-ingest-l2-'));
    const protocols = path.join(dir, 'protocols.json'); // found beside the data without --protocols
    fs.writeFileSync(protocols, JSON.stringify({ staking: { OP: { l2_token_bridge: bridge, wsteth } }, lending_v3: { OP: null }, dex_v3: { OP: null } }));
    const r = await runCli(ingestEvmArgs({ network: 'OP', rpc: anvil.url, from, to, data: dir }));
    expect(r.code, r.stderr).toBe(0);
    const start = r.logs.find((l) => l.event === 'start')!;
    expect(start.datasets).toEqual(['evm/erc20/transfer', 'evm/native/transfer', 'evm/staking/l2_deposit', 'evm/staking/l2_withdrawal_request']);

    served = await serve(dir);
    const truth = nodeTruth(chain, from, to);
    const q = `network=OP&block_start=${from}&block_end=${to}&verbose=true`;
    const dep = (await truth.logs(eventAbi(chain, 'L2TokenBridge', 'DepositFinalized'), bridge)).filter((d) => lower(d.args.l2Token) === wsteth);
    expect(dep.length).toBe(1);
    expect(await events(served, `/v1/evm/staking/events/l2_deposit?${q}`)).toEqual(
      await Promise.all(
        dep.map(async (d) => ({
          block_number: d.block,
          l1_sender: lower(d.args.from),
          l2_receiver: lower(d.args.to),
          amount: units(d.args.amount as bigint, 18),
          time: await truth.time(d.block),
          network: 'OP',
          tx_id: d.log.transactionHash,
          log_index: d.logIndex,
          name: 'DepositFinalized',
        })),
      ),
    );
    const wd = await truth.logs(eventAbi(chain, 'L2TokenBridge', 'WithdrawalInitiated'), bridge);
    expect(await events(served, `/v1/evm/staking/events/l2_withdrawal_request?${q}`)).toEqual(
      await Promise.all(
        wd.map(async (d) => ({
          block_number: d.block,
          l2_sender: lower(d.args.from),
          l1_receiver: lower(d.args.to),
          amount: units(d.args.amount as bigint, 18),
          time: await truth.time(d.block),
          network: 'OP',
          tx_id: d.log.transactionHash,
          log_index: d.logIndex,
          name: 'WithdrawalInitiated',
        })),
      ),
    );
    const stored = await engineSql(served.store).all<{ l1_token: string; l2_token: string; token: string; contract_address: string }>(
      `SELECT l1_token, l2_token, token, contract_address FROM evm_staking_l2_deposit`,
    );
    expect(stored).toEqual([{ l1_token: l1Wsteth, l2_token: wsteth, token: 'WSTETH', contract_address: bridge }]);
  });
});
