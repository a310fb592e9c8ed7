/**
 * ERC-20 `Transfer` rows decoded by DuckDB from a batch's log file (a JSON
 * array of the node's logs, read with `read_json`): one INSERT … SELECT, with
 * no JS object per transfer. A log counts only with exactly three topics and
 * 32 data bytes (cryo's guard): ERC-721 `Transfer` has the same signature
 * with the token id as a fourth topic, and is left out. Amounts below 2^124
 * (31 hex digits; every real transfer of a token worth anything) are read
 * from two 64-bit halves; larger ones come computed in JS and are joined in.
 * `amount` is the double nearest to the exact value, as the JS decoders'
 * scaling ("<raw>e-<decimals>" parsed) gives it: an amount below 2^53 and a
 * power of ten up to 10^22 are both doubles exactly, so their quotient is that
 * nearest double with no text made; any other amount is parsed from its text.
 */
import type { LogFileTransfers, SqlParams } from '../types.ts';
import type { Tx } from './types.ts';

/** The log fields read from the file; every one is kept as the node's text. */
const LOG_COLUMNS = `{address: 'VARCHAR', topics: 'VARCHAR[]', data: 'VARCHAR', blockNumber: 'VARCHAR', blockHash: 'VARCHAR', transactionHash: 'VARCHAR', transactionIndex: 'VARCHAR', logIndex: 'VARCHAR', removed: 'BOOLEAN'}`;

/** The file bound to `$<param>` as a relation of logs (columns as the node names them). */
export const logFileRelation = (param: string) => `read_json($${param}, format = 'array', columns = ${LOG_COLUMNS})`;

/** Where a statement reads a log file's logs from (the file, or its parsed table: ./parsedLogFiles.ts), and the parameters that relation binds. */
export interface LogSource {
  readonly relation: string;
  readonly params: SqlParams;
}

/** The 3-topic, 32-byte shape of an ERC-20 Transfer, over a log relation (`$<param>` bound to the selector). */
const isTransfer = (param: string) => `topics[1] = $${param} AND len(topics) = 3 AND length(data) = 66`;
const IS_TRANSFER = isTransfer('transfer');
/** The amount is below 2^124: its first 33 of 64 hex digits are zero. */
const NARROW = `substr(data, 3, 33) = '${'0'.repeat(33)}'`;
/** A narrow amount as HUGEINT: hex digits 34–48 and 49–64 (15 and 16 digits) as two integers. */
const NARROW_VALUE = `(('0x' || substr(data, 36, 15))::BIGINT::HUGEINT * 18446744073709551616::HUGEINT + ('0x' || substr(data, 51, 16))::UBIGINT::HUGEINT)`;
/** 10^0 … 10^22: the powers of ten a double holds exactly. */
const EXACT_POWERS = `[${Array.from({ length: 23 }, (_, i) => `1e${i}`).join(', ')}]::DOUBLE[]`;
/** Amounts a double holds exactly: below 2^53. */
const EXACT_LIMIT = 2 ** 53;
const topicAddress = (i: number) => `'0x' || lower(substr(topics[${i}], 27))`;

/** Aggregates per block of a log relation (`$<param>` bound to the selector): transfers, token contracts, and the amounts too wide for the engine. */
export const transferScan = (param: string) => ({
  events: `count(*) FILTER (WHERE ${isTransfer(param)})`,
  tokens: `list(DISTINCT lower(address)) FILTER (WHERE ${isTransfer(param)})`,
  wide: `list({block_number: blockNumber::BIGINT, log_index: logIndex::BIGINT, data: data}) FILTER (WHERE ${isTransfer(param)} AND NOT ${NARROW})`,
});

/** Inserts the transfers of blocks lo..hi of `network` from the logs of `p.file` (`source`), in block and log order; the headers must be in `blocks` already. */
export async function insertLogFileTransfers(tx: Tx, network: string, lo: number, hi: number, p: LogFileTransfers, source: LogSource): Promise<void> {
  if (p.events === 0) return;
  await tx.run(`CREATE TEMP TABLE transfer_batch_tokens (address VARCHAR, symbol VARCHAR, decimals UTINYINT)`);
  await tx.run(`CREATE TEMP TABLE transfer_batch_wide (block_number BIGINT, log_index BIGINT, value VARCHAR)`);
  try {
    await tx.append(
      'transfer_batch_tokens',
      p.tokens.map((t) => [t.address, t.symbol, t.decimals]),
    );
    if (p.wide.length)
      await tx.append(
        'transfer_batch_wide',
        p.wide.map((w) => [w.block_number, w.log_index, w.value]),
      );
    const [done] = await tx.all<{ Count: bigint }>(
      `INSERT INTO ${p.table} BY NAME
       SELECT $network AS network, v.block_number, v.log_index, b.time, v.tx_hash, v.token_address, t.symbol AS token, t.decimals AS token_decimals, v.sender, v.receiver,
              coalesce(v.narrow::BIGNUM, v.wide::BIGNUM) AS amount_raw,
              CASE WHEN v.narrow < ${EXACT_LIMIT} AND t.decimals <= 22 THEN v.narrow::DOUBLE / list_extract(${EXACT_POWERS}, t.decimals::INTEGER + 1)
                   ELSE (coalesce(v.narrow::VARCHAR, v.wide) || 'e-' || t.decimals)::DOUBLE END AS amount
       FROM (
         SELECT l.*, w.value AS wide
         FROM (
           SELECT blockNumber::BIGINT AS block_number, logIndex::BIGINT AS log_index, transactionHash AS tx_hash, lower(address) AS token_address,
                  ${topicAddress(2)} AS sender, ${topicAddress(3)} AS receiver,
                  CASE WHEN ${NARROW} THEN ${NARROW_VALUE} END AS narrow
           FROM ${source.relation} WHERE ${IS_TRANSFER}
         ) l
         LEFT JOIN transfer_batch_wide w USING (block_number, log_index)
       ) v
       JOIN blocks b ON b.network = $network AND b.number BETWEEN $lo AND $hi AND b.number = v.block_number
       JOIN transfer_batch_tokens t ON t.address = v.token_address
       ORDER BY v.block_number, v.log_index`,
      { ...source.params, transfer: p.selector, network, lo, hi },
    );
    // Every transfer has its block's header and its token's metadata; a shortfall is a bug, not data to drop.
    if (Number(done?.Count ?? -1) !== p.events) throw new Error(`${p.table}: inserted ${done?.Count} of ${p.events} transfers of blocks ${lo}–${hi}`);
  } finally {
    await tx.run(`DROP TABLE transfer_batch_tokens`);
    await tx.run(`DROP TABLE transfer_batch_wide`);
  }
}
