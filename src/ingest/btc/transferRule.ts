/**
 * What a Bitcoin "transfer" is (the rule the btc endpoints document):
 *
 * - One row per output paid to an address that does not also fund the
 *   transaction. Outputs back to a funding address are change, not transfers.
 * - The sender is the funding input address holding the largest value
 *   (ties: the earliest input); inputs without an address take no part. A
 *   coinbase transaction has no sender, nor has one whose inputs all lack an
 *   address: its outputs are transfers from an unknown sender (null).
 * - An output's address is the one bitcoind prints, pay-to-anchor and witness
 *   versions 2+ included. Outputs without an address (OP_RETURN, P2PK, bare
 *   multisig, non-standard) are not transfers; zero-value outputs are not
 *   transfers either.
 * - Each row keeps the transaction id and output index (vout).
 */

export interface UtxoInput {
  /** Address of the spent output; null when it has none (non-standard script). */
  readonly address: string | null;
  /** Value of the spent output, in satoshis. */
  readonly value: bigint;
}

export interface UtxoOutput {
  readonly vout: number;
  readonly address: string | null;
  readonly value: bigint;
}

export interface UtxoTransaction {
  readonly txid: string;
  readonly coinbase: boolean;
  readonly inputs: readonly UtxoInput[];
  readonly outputs: readonly UtxoOutput[];
}

export interface BtcTransfer {
  readonly txid: string;
  readonly vout: number;
  readonly sender: string | null;
  readonly receiver: string;
  /** Satoshis. */
  readonly value: bigint;
}

export function transfersOf(tx: UtxoTransaction): BtcTransfer[] {
  const funders = new Set<string>();
  let sender: string | null = null;
  let largest = -1n;
  if (!tx.coinbase) {
    // Sum per address first: one address may fund several inputs.
    const byAddress = new Map<string, bigint>();
    for (const input of tx.inputs) {
      if (input.address === null) continue;
      funders.add(input.address);
      byAddress.set(input.address, (byAddress.get(input.address) ?? 0n) + input.value);
    }
    for (const [address, value] of byAddress) {
      if (value > largest) {
        largest = value;
        sender = address;
      }
    }
  }
  const out: BtcTransfer[] = [];
  for (const o of tx.outputs) {
    if (o.address === null || o.value <= 0n || funders.has(o.address)) continue;
    out.push({ txid: tx.txid, vout: o.vout, sender, receiver: o.address, value: o.value });
  }
  return out;
}
