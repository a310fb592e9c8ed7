/**
 * ERC-20 `Transfer` from any contract. A log counts only with exactly three
 * topics and 32 data bytes (cryo's guard): ERC-721 `Transfer` has the same
 * signature with the token id as a fourth topic, and is left out.
 *
 * The busiest dataset of every chain, so the store decodes it from the
 * batch's log file (logFile.ts), with no JS object per transfer: this
 * decoder names the event and hands the store the tokens' metadata
 * (`LogFileTransfers`, src/store/types.ts; DuckDB's SQL is in
 * src/store/duckdb/logFileTransfers.ts).
 */
import { createEventDecoder } from '../eventDecoder.ts';
import type { TransferDecoder, EngineInsert, LogFileTransfers, PlanProtocol } from '../types.ts';
import { ERC20_ABI, erc20Transfer } from './catalog.ts';

export const transferDecoder = createEventDecoder(ERC20_ABI.transfer);
export const ERC20_DATASET = erc20Transfer.id;

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

export function createErc20Decoder(): TransferDecoder {
  return {
    protocol: 'erc20',
    datasets: [ERC20_DATASET],
    topic0: [transferDecoder.selector],
    addresses: null,
    engine: { selector: transferDecoder.selector, transfers },
  };
}
