/**
 * Rows of an ABI event of static values (LogFileEvent) decoded by DuckDB from
 * a batch's log file, as ERC-20 transfers are (./logFileTransfers.ts): one
 * INSERT … SELECT generated from where each value sits in the log, with no JS
 * object per log. Each value is read as the ABI decodes it, exactly: integers
 * of up to 64 bits from the word's last 16 hex digits (a word that does not
 * fit is an error, as the JS decoder's would be at the append); wider ones
 * from 64-bit limbs summed as BIGNUM, since the engine's own integer types
 * stop at 128 bits and BIGNUM adds exactly but does not multiply.
 */
import type { LogFileValue, LogSlot } from '../../protocols/types.ts';
import type { LogFileEvent, LogFileEventRows, SqlParams } from '../types.ts';
import type { Tx } from './types.ts';
import type { LogSource } from './logFileTransfers.ts';

const zeros = (n: number) => '0'.repeat(n);
const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** The 64 hex digits of a slot, over a log relation's `topics` and `data`. */
const slotText = (at: LogSlot) => ('topic' in at ? `substr(topics[${at.topic + 1}], 3, 64)` : `substr(data, ${3 + 64 * at.word}, 64)`);

/** 16 hex digits of a word from digit `from` (1-based), as an unsigned 128-bit integer. */
const limb = (word: string, from: number) => `('0x' || substr(${word}, ${from}, 16))::UBIGINT::UHUGEINT`;

const TWO_64 = 2n ** 64n;
const TWO_256 = 2n ** 256n;
const DIGITS = 13;
const BASE = 10n ** BigInt(DIGITS);

/**
 * `limb` × `factor` as a BIGNUM: the factor in base 10^13, each digit's
 * product (below 2^64 × 10^13, inside UHUGEINT) shifted by appending zeros
 * to its decimal text.
 */
function scaled(limbSql: string, factor: bigint): string {
  const terms: string[] = [];
  for (let shift = 0, f = factor; f > 0n; shift += DIGITS, f /= BASE) {
    const digit = f % BASE;
    if (digit !== 0n) terms.push(`((${limbSql} * ${digit}::UHUGEINT)::VARCHAR || '${zeros(shift)}')::BIGNUM`);
  }
  return terms.join(' + ');
}

/**
 * A 256-bit word as a BIGNUM, in two's complement when `signed`: a word
 * below 2^128 (most) from two limbs, any other as the sum of its four.
 */
function wideInt(w: string, signed: boolean): string {
  const low = `(${limb(w, 33)} * ${TWO_64}::UHUGEINT + ${limb(w, 49)})`;
  const full = `${low}::BIGNUM + ${scaled(limb(w, 17), TWO_64 ** 2n)} + ${scaled(limb(w, 1), TWO_64 ** 3n)}`;
  // Hex digits 8–f (either case) sort from '8' on: the sign bit is set.
  const value = signed ? `${full} - CASE WHEN substr(${w}, 1, 1) < '8' THEN 0::BIGNUM ELSE '${TWO_256}'::BIGNUM END` : full;
  return `CASE WHEN substr(${w}, 1, 32) = '${zeros(32)}' THEN ${low}::BIGNUM ELSE ${value} END`;
}

const TOO_WIDE = `error('an integer of at most 64 bits holds a wider value')`;

/** An integer of at most 64 bits: the whole word must be its zero or sign extension. */
function narrowInt(w: string, signed: boolean): string {
  const low = `('0x' || substr(${w}, 49, 16))::UBIGINT`;
  if (!signed) return `CASE WHEN substr(${w}, 1, 48) = '${zeros(48)}' THEN ${low} ELSE ${TOO_WIDE} END`;
  return `CASE WHEN substr(${w}, 1, 48) = '${zeros(48)}' THEN ${low}::BIGINT WHEN lower(substr(${w}, 1, 48)) = '${'f'.repeat(48)}' THEN (${low}::HUGEINT - ${TWO_64}::HUGEINT)::BIGINT ELSE ${TOO_WIDE} END`;
}

function valueSql(v: LogFileValue): string {
  if (v.type === 'topic') return `lower(topics[${v.topic + 1}])`;
  const w = slotText(v.at);
  if (v.type === 'address') return `'0x' || lower(substr(${w}, 25, 40))`;
  if (v.type === 'bool') return `(substr(${w}, 64, 1) = '1')`;
  if (v.type === 'bytes') return `'0x' || lower(substr(${w}, 1, ${2 * v.size}))`;
  return v.bits <= 64 ? narrowInt(w, v.type === 'int') : wideInt(w, v.type === 'int');
}

/**
 * What a log's words must be for its values to be read: 64 hex digits each
 * (a topic at least that long after its 0x), and a bool's 0 or 1; else the
 * log is not this event. One hex decoding of the words joined costs less than
 * a regular expression per word.
 */
function validSql(e: LogFileEvent): string[] {
  const read = e.columns.flatMap((c) => (c.value.type === 'topic' ? [] : [c.value]));
  const topics = [...new Set(read.flatMap((v) => ('topic' in v.at ? [v.at.topic] : [])))];
  const hex = read.filter((v) => v.type !== 'bool').map((v) => slotText(v.at));
  return [
    ...topics.map((t) => `length(topics[${t + 1}]) >= 66`),
    ...(hex.length ? [`try(from_hex(${hex.join(' || ')})) IS NOT NULL`] : []),
    ...read.filter((v) => v.type === 'bool').map((v) => `${slotText(v.at)} IN ('${zeros(64)}', '${zeros(63)}1')`),
  ];
}

/**
 * The condition that a log of a log relation is a row of the event, with its
 * parameters named `<prefix>…` (several events share one scan).
 */
export function eventCondition(e: LogFileEvent, prefix: string): { sql: string; params: SqlParams } {
  const params: SqlParams = { [`${prefix}sel`]: e.selector };
  e.contracts.forEach((c, i) => {
    params[`${prefix}c${i}`] = c;
  });
  const contracts = e.contracts.map((_, i) => `$${prefix}c${i}`).join(', ');
  const sql = [`topics[1] = $${prefix}sel`, `len(topics) = ${e.topics}`, `length(data) = ${2 + 64 * e.words}`, `lower(address) IN (${contracts})`, ...validSql(e)].join(' AND ');
  return { sql, params };
}

/** Inserts the event's rows of blocks lo..hi of `network` from the logs of `p.file` (`source`), in block and log order; the headers must be in `blocks` already. */
export async function insertLogFileEvents(tx: Tx, network: string, lo: number, hi: number, p: LogFileEventRows, source: LogSource): Promise<void> {
  if (p.events === 0) return;
  const where = eventCondition(p.event, 'e');
  const values = p.event.columns.map((c) => `${valueSql(c.value)} AS ${ident(c.name)}`);
  const [done] = await tx.all<{ Count: bigint }>(
    `INSERT INTO ${ident(p.event.table)} BY NAME
     SELECT $network AS network, b.time, v.*
     FROM (
       SELECT blockNumber::BIGINT AS block_number, logIndex::BIGINT AS log_index, transactionHash AS tx_hash, lower(address) AS contract_address${values.map((x) => `, ${x}`).join('')}
       FROM ${source.relation} WHERE ${where.sql}
     ) v
     JOIN blocks b ON b.network = $network AND b.number BETWEEN $lo AND $hi AND b.number = v.block_number
     ORDER BY v.block_number, v.log_index`,
    { ...where.params, ...source.params, network, lo, hi },
  );
  // Every row has its block's header; a shortfall is a bug, not data to drop.
  if (Number(done?.Count ?? -1) !== p.events) throw new Error(`${p.event.table}: inserted ${done?.Count} of ${p.events} rows of blocks ${lo}–${hi}`);
}
