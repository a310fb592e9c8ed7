/**
 * Bitcoin transfers through the API. Hand-built blocks pin the UTXO transfer
 * rule end to end (change, several inputs, coinbase, outputs without an
 * address); the demo dataset covers formats, filters and ranges.
 */
import * as bitcoin from 'bitcoinjs-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BTC_DEMO_START_BLOCK } from '../../src/demo/btc.ts';
import { DEMO_START } from '../../src/demo/generate.ts';
import { btcChainBatch, type BtcBlock } from '../../src/ingest/btc/writeBtcBlocks.ts';
import { parseCsv, readParquet } from '../helpers/formats.ts';
import { createTestApp, noteChanged, type TestApp } from '../helpers/testApp.ts';
import { engineSql } from '../helpers/engineSql.ts';

const PATH = '/v1/btc/native/events/transfer';
// A and E are labelled exchange addresses in the shipped seed.
const A = 'bc1qm34lsc65zpw79lxes69zkqmk6ee3ewf0j77s3h';
const B = '1BoatSLRHtKNngkdXEeobR76b53LETtpyT';
const C = '3Cbq7aT1tY8kMxWLbitaG7yT6bPbKChq64';
const D = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';
const E = '34xp4vRoCGJym3xR7yCVPFHoCNxv4Twseo';
const MINER = '1CK6KHY6MHgYvmRQ4PAafKYDrg1ejbH1cE';
const T0 = Date.UTC(2025, 5, 1);
/** Pay-to-anchor, and an output of witness version 2: Bitcoin Core prints an address for both. */
const ANCHOR = 'bc1pfeessrawgf';
const V2 = bitcoin.address.toBech32(Buffer.alloc(32, 0x21), 2, 'bc');

const BLOCKS: BtcBlock[] = [
  {
    number: 900_000,
    time: T0,
    hash: 'h0',
    parentHash: 'hp',
    transactions: [
      // Coinbase: the reward has no sender; the witness commitment has no address.
      {
        txid: 'cb0',
        coinbase: true,
        inputs: [],
        outputs: [
          { vout: 0, address: MINER, value: 312_600_000n },
          { vout: 1, address: null, value: 0n },
        ],
      },
      // A pays B and gets change back: one transfer.
      {
        txid: 'tx1',
        coinbase: false,
        inputs: [{ address: A, value: 1_000_000n }],
        outputs: [
          { vout: 0, address: A, value: 390_000n },
          { vout: 1, address: B, value: 600_000n },
        ],
      },
      // Three inputs from A, D, A: A funds most in total (0.007 BTC vs 0.005), so A is the sender; D's output is change.
      {
        txid: 'tx2',
        coinbase: false,
        inputs: [
          { address: A, value: 400_000n },
          { address: D, value: 500_000n },
          { address: A, value: 300_000n },
        ],
        outputs: [
          { vout: 0, address: C, value: 700_000n },
          { vout: 1, address: D, value: 250_000n },
          { vout: 2, address: E, value: 240_000n },
        ],
      },
    ],
  },
  {
    number: 900_001,
    time: T0 + 600_000,
    hash: 'h1',
    parentHash: 'h0',
    transactions: [
      { txid: 'cb1', coinbase: true, inputs: [], outputs: [{ vout: 0, address: MINER, value: 312_500_000n }] },
      // An OP_RETURN output and a payment: only the payment is a transfer.
      {
        txid: 'tx3',
        coinbase: false,
        inputs: [{ address: E, value: 5_000_000n }],
        outputs: [
          { vout: 0, address: null, value: 0n },
          { vout: 1, address: C, value: 4_990_000n },
        ],
      },
    ],
  },
  { number: 900_002, time: T0 + 1_200_000, hash: 'h2', parentHash: 'h1', transactions: [{ txid: 'cb2', coinbase: true, inputs: [], outputs: [{ vout: 0, address: MINER, value: 312_500_000n }] }] },
  {
    number: 900_003,
    time: T0 + 1_800_000,
    hash: 'h3',
    parentHash: 'h2',
    transactions: [
      { txid: 'cb3', coinbase: true, inputs: [], outputs: [{ vout: 0, address: MINER, value: 312_500_000n }] },
      // No input has an address (pay-to-pubkey, non-standard scripts): the payments have no sender.
      {
        txid: 'tx4',
        coinbase: false,
        inputs: [
          { address: null, value: 50_000n },
          { address: null, value: 10_000n },
        ],
        outputs: [{ vout: 0, address: B, value: 59_000n }],
      },
      // A 240-sat anchor and a witness v2 output are transfers; a zero-value anchor is not.
      {
        txid: 'tx5',
        coinbase: false,
        inputs: [{ address: C, value: 100_000n }],
        outputs: [
          { vout: 0, address: ANCHOR, value: 240n },
          { vout: 1, address: ANCHOR, value: 0n },
          { vout: 2, address: V2, value: 90_000n },
        ],
      },
    ],
  },
];

interface Row {
  block_number: number;
  token: string;
  sender: string | null;
  receiver: string;
  amount: number;
  time: string;
  tx_id?: string;
  vout?: number;
}

describe('bitcoin transfer rule through the API', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(null);
    noteChanged(t.store);
    await t.store.chain.publish(btcChainBatch(BLOCKS));
  });
  afterAll(async () => {
    await t.close();
  });
  const json = async (url: string) => {
    const r = await t.get(url);
    expect(r.statusCode, r.body).toBe(200);
    return JSON.parse(r.body) as { events: Row[]; count: number };
  };

  it('turns hand-built transactions into one row per output to a non-funding address', async () => {
    const body = await json(`${PATH}?block_start=900000&block_end=900001&verbose=true`);
    expect(body.events.map((e) => [e.tx_id, e.vout, e.sender, e.receiver, e.amount])).toEqual([
      ['cb0', 0, null, MINER, 3.126],
      ['tx1', 1, A, B, 0.006],
      ['tx2', 0, A, C, 0.007],
      ['tx2', 2, A, E, 0.0024],
      ['cb1', 0, null, MINER, 3.125],
      ['tx3', 1, E, C, 0.0499],
    ]);
    expect(body.events[0]).toMatchObject({ block_number: 900_000, token: 'BTC', time: '2025-06-01T00:00:00Z' });
  });

  it('shows the coinbase sender as null in JSON and as an empty field in CSV', async () => {
    const csv = parseCsv((await t.get(`${PATH}?block_start=900002&block_end=900002&format=csv`)).body);
    expect(csv.rows).toEqual([{ block_number: '900002', token: 'BTC', sender: '', receiver: MINER, amount: '3.125', time: '2025-06-01T00:20:00Z' }]);
  });

  it('shows a sender as null when no input has an address, and serves anchor and witness v2 receivers', async () => {
    const body = await json(`${PATH}?block_start=900003&block_end=900003&verbose=true`);
    expect(body.events.map((e) => [e.tx_id, e.vout, e.sender, e.receiver, e.amount])).toEqual([
      ['cb3', 0, null, MINER, 3.125],
      ['tx4', 0, null, B, 0.00059],
      ['tx5', 0, C, ANCHOR, 0.0000024],
      ['tx5', 2, C, V2, 0.0009],
    ]);
    const csv = parseCsv((await t.get(`${PATH}?block_start=900003&block_end=900003&format=csv&sender=${C}`)).body);
    expect(csv.rows.map((r) => r.receiver)).toEqual([ANCHOR, V2]);
    const unknownSender = parseCsv((await t.get(`${PATH}?block_start=900003&block_end=900003&format=csv&receiver=${B}`)).body);
    expect(unknownSender.rows.map((r) => r.sender)).toEqual(['']);
    expect((await json(`${PATH}?block_start=900003&block_end=900003&receiver=${ANCHOR}`)).events.map((e) => e.amount)).toEqual([0.0000024]);
    expect((await json(`${PATH}?block_start=900003&block_end=900003&involving=${V2.toUpperCase()}`)).events.map((e) => e.receiver)).toEqual([V2]);
  });

  it("filters on the rule's sender and receiver, and on labels", async () => {
    const bySender = await json(`${PATH}?block_start=900000&block_end=900002&sender=${A}`);
    expect(bySender.events.map((e) => e.receiver)).toEqual([B, C, E]);
    const involving = await json(`${PATH}?block_start=900000&block_end=900002&involving=${E}`);
    expect(involving.events.map((e) => [e.sender, e.receiver])).toEqual([
      [A, E],
      [E, C],
    ]);
    // D funded tx2 and got change: it is in no row at all.
    expect((await json(`${PATH}?block_start=900000&block_end=900002&involving=${D}`)).count).toBe(0);
    const label = await json(`${PATH}?block_start=900000&block_end=900002&receiver_label=binance`);
    expect(label.events.map((e) => e.receiver)).toEqual([E]);
    const cat = await json(`${PATH}?block_start=900000&block_end=900002&involving_category=exchange`);
    expect(cat.count).toBe(4);
    const min = await json(`${PATH}?block_start=900000&block_end=900002&min_amount=0.0065&max_amount=1`);
    expect(min.events.map((e) => e.amount)).toEqual([0.007, 0.0499]);
  });

  it('selects by block time, and refuses ranges that were never ingested', async () => {
    const body = await json(`${PATH}?since=2025-06-01T00:05:00Z&until=2025-06-01T00:15:00Z`);
    expect(body.events.map((e) => e.block_number)).toEqual([900_001, 900_001]);
    const r = await t.get(`${PATH}?block_start=899990&block_end=900001`);
    expect(r.statusCode).toBe(400);
    expect(JSON.parse(r.body)).toMatchObject({ code: 'invalid_range', missing_blocks: [[899_990, 899_999]] });
  });
});

describe('bitcoin transfers over the demo dataset', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('has blocks about every 10 minutes, each with a coinbase row and change left out', async () => {
    const blocks = await engineSql(t.oracle).all<{ n: bigint; gap: number }>(`SELECT count(*) AS n, avg(gap) AS gap FROM (
      SELECT epoch(time) - epoch(lag(time) OVER (ORDER BY number)) AS gap FROM blocks WHERE network = 'BTC')`);
    expect(Number(blocks[0]!.n)).toBeGreaterThan(40);
    expect(blocks[0]!.gap).toBeGreaterThan(300);
    expect(blocks[0]!.gap).toBeLessThan(1200);
    const r = await t.get(`${PATH}?block_start=${BTC_DEMO_START_BLOCK}&block_end=${BTC_DEMO_START_BLOCK + 5}&verbose=true`);
    const rows = (JSON.parse(r.body) as { events: Row[] }).events;
    const coinbase = rows.filter((e) => e.sender === null);
    expect(coinbase.length).toBe(6);
    // Under the rule a receiver never funds its own transaction, so it is never the sender.
    for (const e of rows) expect(e.receiver).not.toBe(e.sender);
    // Several outputs of one transaction share a sender.
    const perTx = new Map<string, Set<string | null>>();
    for (const e of rows) perTx.set(e.tx_id!, (perTx.get(e.tx_id!) ?? new Set()).add(e.sender));
    for (const senders of perTx.values()) expect(senders.size).toBe(1);
  });

  it('answers typed Parquet and CSV with the same rows', async () => {
    const range = `block_start=${BTC_DEMO_START_BLOCK}&block_end=${BTC_DEMO_START_BLOCK + 20}`;
    const csv = parseCsv((await t.get(`${PATH}?${range}&format=csv`)).body);
    const parquet = await readParquet(t.oracle, (await t.get(`${PATH}?${range}&format=parquet`)).rawPayload);
    expect(parquet.columns.map((c) => c.type)).toEqual(['BIGINT', 'VARCHAR', 'VARCHAR', 'VARCHAR', 'DOUBLE', 'VARCHAR']);
    expect(parquet.rows.length).toBe(csv.rows.length);
    expect(parquet.rows.map((r) => String(r.receiver))).toEqual(csv.rows.map((r) => r.receiver));
  });

  it('applies the JSON time limit of one day, and the Parquet one of seven', async () => {
    const since = DEMO_START / 1000 + 600;
    const over = await t.get(`${PATH}?since=${since}&until=${since + 86_401}`);
    expect(over.statusCode).toBe(400);
    expect(JSON.parse(over.body)).toMatchObject({ code: 'range_too_large' });
    // Within the Parquet limit the range is accepted, and then refused only for what was never ingested.
    const parquet = await t.get(`${PATH}?since=${since}&until=${since + 86_401}&format=parquet`);
    expect(JSON.parse(parquet.body)).toMatchObject({ code: 'invalid_range' });
  });
});
