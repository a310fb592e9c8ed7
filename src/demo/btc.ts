/**
 * Bitcoin demo: a block about every 10 minutes (exponential gaps), each with
 * a coinbase and a few hundred payments. Payments spend one or several
 * inputs, pay one or a batch of receivers, and mostly send change back to a
 * funding address; rows come from the transfer rule, like ingested ones.
 */
import { bech32 } from '@scure/base';
import { createBase58check } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2';
import { createHash } from 'node:crypto';
import { BTC_DATASET, BTC_NETWORK, btcTransferRows, type BtcBlock } from '../ingest/btc/writeBtcBlocks.ts';
import type { UtxoInput, UtxoOutput, UtxoTransaction } from '../ingest/btc/transferRule.ts';
import type { BtcDemoBlocks, BtcDemoSource, DemoWindow } from '../store/demo.ts';
import { createRandom, type Random } from './random.ts';

/** Height of the first demo block, near the real height on 2025-12-01. */
export const BTC_DEMO_START_BLOCK = 925_000;
const POOL = 30_000;
const TX_PER_BLOCK = 300;
const SUBSIDY = 312_500_000n;
const MINING_POOLS = 12;

const base58check = createBase58check(sha256);
const digest = (text: string) => createHash('sha256').update(text).digest();

/** A valid address of the demo pool: P2WPKH (bc1q…) mostly, some P2PKH (1…) and P2SH (3…). */
function poolAddress(i: number): string {
  const h = digest(`btc-demo:${i}`).subarray(0, 20);
  const kind = i % 10;
  if (kind < 7) return bech32.encode('bc', [0, ...bech32.toWords(h)]);
  return base58check.encode(Uint8Array.from([kind < 9 ? 0x00 : 0x05, ...h]));
}

const hex = (text: string) => digest(text).toString('hex');

function payment(r: Random, id: string, pick: () => string): UtxoTransaction {
  const sender = pick();
  const nInputs = r.next() < 0.6 ? 1 : r.next() < 0.6 ? 2 : 3 + r.int(3);
  const inputs: UtxoInput[] = [];
  for (let k = 0; k < nInputs; k++) {
    // Mostly the sender's own coins; sometimes a co-spender's.
    const address = k === 0 || r.next() < 0.75 ? sender : pick();
    inputs.push({ address, value: BigInt(Math.round(r.pareto(200_000, 1.1, 20_000))) });
  }
  const total = inputs.reduce((s, i) => s + i.value, 0n);
  const fee = BigInt(300 + r.int(200) * nInputs);
  if (total <= fee + 1_000n) return { txid: id, coinbase: false, inputs, outputs: [{ vout: 0, address: pick(), value: total - fee > 0n ? total - fee : 0n }] };
  const spendable = total - fee;
  const nPayees = r.next() < 0.8 ? 1 : 2 + r.int(6);
  const withChange = r.next() < 0.85;
  const outputs: UtxoOutput[] = [];
  let left = spendable;
  // Payees take 20–95% of what is spendable when there is change, all of it otherwise.
  const paid = withChange ? (spendable * BigInt(20 + r.int(76))) / 100n : spendable;
  for (let k = 0; k < nPayees; k++) {
    const value = k === nPayees - 1 ? paid - (spendable - left) : (paid * BigInt(1 + r.int(100))) / BigInt(100 * nPayees);
    if (value <= 0n) continue;
    outputs.push({ vout: outputs.length, address: pick(), value });
    left -= value;
  }
  if (withChange && left > 0n) {
    // Change goes back to a funding address, at a random position.
    const at = r.int(outputs.length + 1);
    outputs.splice(at, 0, { vout: 0, address: sender, value: left });
  }
  return { txid: id, coinbase: false, inputs, outputs: outputs.map((o, vout) => ({ ...o, vout })) };
}

function btcDemoBlocks(window: DemoWindow, labelled: readonly string[]): BtcDemoBlocks {
  const r = createRandom('btc-demo');
  const pool = Array.from({ length: POOL }, (_, i) => poolAddress(i));
  const miners = Array.from({ length: MINING_POOLS }, (_, i) => poolAddress(POOL + i));
  const pick = () => (labelled.length && r.next() < 0.06 ? labelled[r.int(labelled.length)]! : pool[r.zipf(POOL)]!);
  const end = window.start + window.days * 86_400_000;

  const blocks: BtcBlock[] = [];
  // The first block falls before the window, so that a time range starting at
  // the window start is known to be complete (a block before `since` exists).
  let time = window.start - 600_000;
  let parent = hex('btc-demo:genesis');
  for (let n = BTC_DEMO_START_BLOCK; time < end; n++) {
    const hash = hex(`btc-demo:block:${n}`);
    const txs: UtxoTransaction[] = [];
    const count = Math.max(1, Math.round(TX_PER_BLOCK * window.scale * (0.5 + r.next())));
    for (let k = 0; k < count; k++) txs.push(payment(r, hex(`btc-demo:tx:${n}:${k}`), pick));
    const fees = txs.reduce((s, t) => s + t.inputs.reduce((a, i) => a + i.value, 0n) - t.outputs.reduce((a, o) => a + o.value, 0n), 0n);
    txs.unshift({
      txid: hex(`btc-demo:coinbase:${n}`),
      coinbase: true,
      inputs: [],
      // The reward to a mining pool, and the witness commitment (OP_RETURN, no address).
      outputs: [
        { vout: 0, address: miners[r.int(MINING_POOLS)]!, value: SUBSIDY + fees },
        { vout: 1, address: null, value: 0n },
      ],
    });
    blocks.push({ number: n, time, hash, parentHash: parent, transactions: txs });
    parent = hash;
    // Block times are whole seconds.
    time += Math.max(1, Math.round(r.exp(600))) * 1000;
  }
  // The rows come from the transfer rule, as ingested ones do.
  return { blocks, transfers: blocks.flatMap(btcTransferRows) };
}

/** Bitcoin's part of the demo: payments between a fixed pool of valid addresses, ~6% of them labelled ones. */
export const BTC_DEMO: BtcDemoSource = { network: BTC_NETWORK, dataset: BTC_DATASET.id, firstBlock: BTC_DEMO_START_BLOCK, build: btcDemoBlocks };
