/**
 * ERC-20 `Transfer` from any contract. A log counts only with exactly three
 * topics and 32 data bytes (cryo's guard): ERC-721 `Transfer` has the same
 * signature with the token id as a fourth topic, and is left out.
 *
 * The busiest dataset of every chain, so the engine decodes it: one
 * INSERT … SELECT over the batch's log file (logFile.ts), with no JS object
 * per transfer. Amounts below 2^124 (31 hex digits; every real transfer of a
 * token worth anything) are read by DuckDB from two 64-bit halves; larger
 * ones (up to 2^256 − 1) are converted in JS when the batch is scanned and
 * joined in. `amount` parses "<raw>e-<decimals>", like scaleAmount, so that
 * it is the double nearest to the exact value.
 */
import { ERC20_ABI, erc20Transfer } from '../../../catalog/evm/erc20.ts';
import type { LogFileTransfers } from '../../../store/types.ts';
import type { Hex } from '../../rpc/getLogs.ts';
import { createEventDecoder } from '../eventDecoder.ts';
import type { EngineBatch, EngineDecoder, EngineInsert, PlanProtocol, WideValue } from '../types.ts';

export const transferDecoder = createEventDecoder(ERC20_ABI.transfer);
export const ERC20_DATASET = erc20Transfer.id;

/** The 3-topic, 32-byte shape of an ERC-20 Transfer, in SQL over a log relation (`$transfer` bound to the selector). */
const IS_TRANSFER = `topics[1] = $transfer AND len(topics) = 3 AND length(data) = 66`;
/** The amount is below 2^124: its first 33 of 64 hex digits are zero. */
const NARROW = `substr(data, 3, 33) = '${'0'.repeat(33)}'`;

/** Per block: transfers, token contracts, and the amounts too wide for the engine. */
const SCAN = {
  events: `count(*) FILTER (WHERE ${IS_TRANSFER})`,
  tokens: `list(DISTINCT lower(address)) FILTER (WHERE ${IS_TRANSFER})`,
  wide: `list({block_number: blockNumber::BIGINT, log_index: logIndex::BIGINT, data: data}) FILTER (WHERE ${IS_TRANSFER} AND NOT ${NARROW})`,
};

type WideRow = { block_number: bigint; log_index: bigint; data: Hex };

function prepare(perBlock: readonly Readonly<Record<string, unknown>>[]): EngineBatch {
  let events = 0;
  const tokens = new Set<Hex>();
  const wide: WideValue[] = [];
  for (const b of perBlock) {
    events += Number(b.events as bigint);
    for (const t of (b.tokens as Hex[] | null) ?? []) tokens.add(t);
    for (const w of (b.wide as WideRow[] | null) ?? []) wide.push({ block_number: Number(w.block_number), log_index: Number(w.log_index), value: BigInt(w.data).toString() });
  }
  return { events, tokens: [...tokens], wide };
}

/** The batch's transfers as the store decodes them from its log file (`ChainBatch.transfers`). */
function transfers(p: EngineInsert): LogFileTransfers {
  return {
    table: erc20Transfer.table.name,
    file: p.file,
    selector: transferDecoder.selector,
    events: p.batch.events,
    tokens: p.batch.tokens.map((a) => {
      const t = p.token(a);
      return { address: a, symbol: t.symbol, decimals: t.decimals };
    }),
    wide: p.batch.wide,
  };
}

/** Transfers of any contract: nothing to configure. */
export const planErc20: PlanProtocol = ({ endpoints }) => ({ datasets: endpoints.map((e) => e.id), decoder: createErc20Decoder(), skipped: [] });

export function createErc20Decoder(): EngineDecoder {
  return {
    protocol: 'erc20',
    datasets: [ERC20_DATASET],
    topic0: [transferDecoder.selector],
    addresses: null,
    engine: { scan: SCAN, scanParams: { transfer: transferDecoder.selector }, prepare, transfers },
  };
}
