/**
 * Tron node JSON → store rows.
 *
 * - TRX transfers: every successful `TransferContract` (amount in sun; TRX =
 *   sun / 10^6). TRC-10 (`TransferAssetContract`) and TRX moved inside smart
 *   contract calls (internal transactions) are not TRX transfers here.
 * - TRC-20 transfers: logs whose topic0 is Transfer(address,address,uint256)
 *   with exactly 3 topics and 32 data bytes (TRC-721 Transfer has 4 topics),
 *   emitted by a token of the registry, or by any contract when asked, in a
 *   transaction that did not fail: a failure in the block (`contractRet`) or
 *   in its info (`result` FAILED, `receipt.result` other than SUCCESS) drops
 *   all its logs, which still count in `log_index`.
 * - `log_index` is the log's position among all logs of the block, in the
 *   order the node lists transactions and their logs.
 * - Addresses become base58check `T…`.
 */
import { formatUnits } from 'viem';
import { toSqlTimestamp } from '../../query/time.ts';
import { tronBase58ToHex, tronHexToBase58 as encodeBase58 } from '../../utils/tronAddress.ts';
import type { StoreRow } from '../chain/ingestBlocks.ts';
import { blockNumber, type TronBlock, type TronTransactionInfo } from './nodeClient.ts';

export const TRANSFER_TOPIC = 'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
export const TRON_NETWORK = 'TRON';

export interface Trc20Token {
  readonly symbol: string;
  readonly decimals: number;
}

/** Registry tokens keyed by the 20-byte contract hex (lowercase, no 41 prefix), the form logs carry. */
export type Trc20Registry = ReadonlyMap<string, Trc20Token>;

export function registryFromTokens(tokens: readonly { symbol: string; address: string; decimals: number }[]): Trc20Registry {
  const out = new Map<string, Trc20Token>();
  for (const t of tokens) out.set(tronBase58ToHex(t.address).slice(2), { symbol: t.symbol, decimals: t.decimals });
  return out;
}

/** Hex addresses encoded so far: base58check (two SHA-256 and a base conversion) was the adapter's largest cost, and token contracts and busy wallets recur in every block. */
const encoded = new Map<string, string>();
const ENCODED_MAX = 100_000;

function tronHexToBase58(hex: string): string {
  let out = encoded.get(hex);
  if (out === undefined) {
    out = encodeBase58(hex);
    // Bounded: cleared whole when full, which costs one re-encoding per address.
    if (encoded.size >= ENCODED_MAX) encoded.clear();
    encoded.set(hex, out);
  }
  return out;
}

/** A hex `41…` address (or one the node already gave in base58 with visible=true) → `T…`. */
function address(a: unknown): string {
  const s = String(a);
  return s.startsWith('T') ? s : tronHexToBase58(s);
}

/** tron_native_transfer rows of one block. */
export function nativeTransfers(block: TronBlock): StoreRow[] {
  const number = blockNumber(block);
  const time = toSqlTimestamp(block.block_header.raw_data.timestamp);
  const rows: StoreRow[] = [];
  (block.transactions ?? []).forEach((tx, txIndex) => {
    const ret = tx.ret?.[0]?.contractRet;
    if (ret !== undefined && ret !== 'SUCCESS') return;
    const c = tx.raw_data?.contract?.[0];
    if (c?.type !== 'TransferContract') return;
    const v = c.parameter?.value ?? {};
    const sun = BigInt(String(v.amount ?? 0));
    if (sun <= 0n) return;
    rows.push([TRON_NETWORK, number, txIndex, time, tx.txID, 'TRX', address(v.owner_address), address(v.to_address), sun, Number(formatUnits(sun, 6))]);
  });
  return rows;
}

/** true when the block holds a contract call or creation, the only transactions that emit logs. */
export function mayHaveLogs(block: TronBlock): boolean {
  return (block.transactions ?? []).some((tx) => {
    const type = tx.raw_data?.contract?.[0]?.type;
    return type === 'TriggerSmartContract' || type === 'CreateSmartContract';
  });
}

/** Ids of the block's transactions whose `contractRet` is not SUCCESS (REVERT, OUT_OF_ENERGY, …). */
function failedTransactions(block: TronBlock): Set<string> {
  const out = new Set<string>();
  for (const tx of block.transactions ?? []) {
    const ret = tx.ret?.[0]?.contractRet;
    if (ret !== undefined && ret !== 'SUCCESS') out.add(tx.txID);
  }
  return out;
}

/**
 * tron_trc20_transfer rows of one block. Without `anyContract`, only
 * registry tokens are kept; with it, other contracts' transfers are kept
 * with the contract address as token, unknown decimals (NULL) and the raw
 * integer as amount.
 */
export function trc20Transfers(block: TronBlock, infos: readonly TronTransactionInfo[], registry: Trc20Registry, anyContract: boolean): StoreRow[] {
  const number = blockNumber(block);
  const time = toSqlTimestamp(block.block_header.raw_data.timestamp);
  const rows: StoreRow[] = [];
  const failedInBlock = failedTransactions(block);
  let logIndex = 0;
  for (const info of infos) {
    // A reverted transaction transfers nothing, whatever logs it carries; either answer of the node may say it failed.
    const failed = failedInBlock.has(info.id) || (info.receipt?.result !== undefined && info.receipt.result !== 'SUCCESS') || info.result === 'FAILED';
    for (const log of info.log ?? []) {
      const index = logIndex++;
      if (failed) continue;
      const topics = (log.topics ?? []).map((t) => t.toLowerCase().replace(/^0x/, ''));
      const data = (log.data ?? '').toLowerCase().replace(/^0x/, '');
      if (topics.length !== 3 || topics[0] !== TRANSFER_TOPIC || data.length !== 64) continue;
      const contractHex = log.address
        .toLowerCase()
        .replace(/^0x/, '')
        .replace(/^41(?=[0-9a-f]{40}$)/, '');
      const token = registry.get(contractHex);
      if (!token && !anyContract) continue;
      const raw = BigInt(`0x${data}`);
      const contract = tronHexToBase58(contractHex);
      rows.push([
        TRON_NETWORK,
        number,
        index,
        time,
        info.id,
        contract,
        token?.symbol ?? contract,
        token?.decimals ?? null,
        tronHexToBase58(topics[1]!.slice(24)),
        tronHexToBase58(topics[2]!.slice(24)),
        raw.toString(),
        token ? Number(formatUnits(raw, token.decimals)) : Number(raw),
      ]);
    }
  }
  return rows;
}
