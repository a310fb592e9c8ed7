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
import { createEventDecoder } from '../eventDecoder.ts';
import type { Hex } from '../evmNode.ts';
import type { EngineBatch, EngineDecoder, EngineInsert, EngineWriter, PlanProtocol, WideValue } from '../types.ts';
import { ERC20_ABI, erc20Transfer } from './catalog.ts';

export const transferDecoder = createEventDecoder(ERC20_ABI.transfer);
export const ERC20_DATASET = erc20Transfer.id;

/** The 3-topic, 32-byte shape of an ERC-20 Transfer, in SQL over a log relation (`$transfer` bound to the selector). */
const IS_TRANSFER = `topics[1] = $transfer AND len(topics) = 3 AND length(data) = 66`;
/** The amount is below 2^124: its first 33 of 64 hex digits are zero. */
const NARROW = `substr(data, 3, 33) = '${'0'.repeat(33)}'`;
/** A narrow amount as HUGEINT: hex digits 34–48 and 49–64 (15 and 16 digits) as two integers. */
const NARROW_VALUE = `(('0x' || substr(data, 36, 15))::BIGINT::HUGEINT * 18446744073709551616::HUGEINT + ('0x' || substr(data, 51, 16))::UBIGINT::HUGEINT)`;
const topicAddress = (i: number) => `'0x' || lower(substr(topics[${i}], 27))`;

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

async function insert(tx: EngineWriter, p: EngineInsert): Promise<void> {
  if (p.batch.events === 0) return;
  await tx.run(`CREATE TEMP TABLE erc20_batch_tokens (address VARCHAR, symbol VARCHAR, decimals UTINYINT)`);
  await tx.run(`CREATE TEMP TABLE erc20_batch_wide (block_number BIGINT, log_index BIGINT, value VARCHAR)`);
  try {
    await tx.append(
      'erc20_batch_tokens',
      p.batch.tokens.map((a) => {
        const t = p.token(a);
        return [a, t.symbol, t.decimals];
      }),
    );
    if (p.batch.wide.length)
      await tx.append(
        'erc20_batch_wide',
        p.batch.wide.map((w) => [w.block_number, w.log_index, w.value]),
      );
    const [done] = await tx.all<{ Count: bigint }>(
      `INSERT INTO ${erc20Transfer.table.name} BY NAME
       SELECT $network AS network, v.block_number, v.log_index, b.time, v.tx_hash, v.token_address, t.symbol AS token, t.decimals AS token_decimals, v.sender, v.receiver,
              v.raw::BIGNUM AS amount_raw, (v.raw || 'e-' || t.decimals)::DOUBLE AS amount
       FROM (
         SELECT l.*, coalesce(l.narrow, w.value) AS raw
         FROM (
           SELECT blockNumber::BIGINT AS block_number, logIndex::BIGINT AS log_index, transactionHash AS tx_hash, lower(address) AS token_address,
                  ${topicAddress(2)} AS sender, ${topicAddress(3)} AS receiver,
                  CASE WHEN ${NARROW} THEN ${NARROW_VALUE}::VARCHAR END AS narrow
           FROM ${p.relation} WHERE ${IS_TRANSFER}
         ) l
         LEFT JOIN erc20_batch_wide w USING (block_number, log_index)
       ) v
       JOIN blocks b ON b.network = $network AND b.number BETWEEN $lo AND $hi AND b.number = v.block_number
       JOIN erc20_batch_tokens t ON t.address = v.token_address
       ORDER BY v.block_number, v.log_index`,
      { file: p.file, transfer: transferDecoder.selector, network: p.network, lo: p.lo, hi: p.hi },
    );
    // Every transfer has its block's header and its token's metadata; a shortfall is a bug, not data to drop.
    if (Number(done?.Count ?? -1) !== p.batch.events) throw new Error(`erc20: inserted ${done?.Count} of ${p.batch.events} transfers of blocks ${p.lo}–${p.hi}`);
  } finally {
    await tx.run(`DROP TABLE erc20_batch_tokens`);
    await tx.run(`DROP TABLE erc20_batch_wide`);
  }
}

/** Transfers of any contract: nothing to configure. */
export const planErc20: PlanProtocol = ({ endpoints }) => ({ datasets: endpoints.map((e) => e.id), decoder: createErc20Decoder(), skipped: [] });

export function createErc20Decoder(): EngineDecoder {
  return {
    protocol: 'erc20',
    datasets: [ERC20_DATASET],
    topic0: [transferDecoder.selector],
    addresses: null,
    engine: { scan: SCAN, scanParams: { transfer: transferDecoder.selector }, prepare, insert },
  };
}
