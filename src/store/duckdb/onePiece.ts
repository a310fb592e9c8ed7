/**
 * Small JSON results in one piece (README, "Small results in one piece"): the
 * engine encodes the rows and hands them back as one column of a finished
 * result, so a 10-block query takes no fifo, no COPY and no pipe to read. The
 * bytes are those COPY (FORMAT json) writes; a result with more rows than one
 * piece takes is noticed without being built, and streams after all.
 */
import { PassThrough } from 'node:stream';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { CopyStream, SqlParams } from '../types.ts';
import { runKept, runOnce } from './keptStatements.ts';

/** Rows up to which a result is built in one piece: eight light exports at once then hold a few MB at most. */
export const ONE_PIECE_MAX_ROWS = 2_000;

export interface OnePiece {
  /** Newline-delimited JSON rows, each ending in a newline: what COPY (FORMAT json) writes. */
  readonly body: string;
  readonly rows: number;
}

/**
 * One JSON line per row, in the query's order (a projection keeps it). to_json
 * is what COPY's JSON writer emits per row (test/store/onePiece.test.ts pins
 * the bytes). The lines come back as one column, at most 2,001 strings, and
 * are joined once: the engine does the encoding, JavaScript only the
 * concatenation. Joining them in the engine instead (string_agg) needs an
 * explicit order, as a whole-table aggregate does not keep its input's, and
 * row_number() with ORDER BY cost 0.9 ms more than the whole query.
 */
export function onePieceSql(sql: string): string {
  return `SELECT to_json(t)::VARCHAR || chr(10) AS line FROM (SELECT * FROM (${sql}) LIMIT ${ONE_PIECE_MAX_ROWS + 1}) t`;
}

/**
 * The result in one piece, or null when it has more than ONE_PIECE_MAX_ROWS
 * rows; closes `conn` after if `ownsConn`, or else keeps its statement for
 * the next query of the same text on it (src/store/duckdb/keptStatements.ts).
 * One trip to the engine's thread (execute) with a kept statement, two
 * without; the finished result's chunks are read in place. `conn.run` would
 * take five (it first splits the text into statements, and fetches chunks one
 * trip each, the last an empty one), some 0.1 ms apiece on a busy machine.
 */
export async function readOnePiece(conn: DuckDBConnection, sql: string, params: SqlParams, ownsConn: boolean): Promise<OnePiece | null> {
  const text = onePieceSql(sql);
  try {
    const result = ownsConn ? await runOnce(conn, text, params) : await runKept(conn, text, params);
    if (result.rowCount > ONE_PIECE_MAX_ROWS) return null;
    const lines: string[] = [];
    for (let i = 0; i < result.chunkCount; i++) {
      for (const line of result.getChunk(i).getColumnValues(0)) lines.push(String(line));
    }
    return { body: lines.join(''), rows: lines.length };
  } finally {
    if (ownsConn) conn.closeSync();
  }
}

/** A finished result as an export: the body is there whole, so cancelling only drops the stream. */
export function onePieceStream(piece: OnePiece): CopyStream {
  const whole = Buffer.from(piece.body);
  const stream = new PassThrough();
  stream.end(whole.length ? whole : undefined);
  return { stream, done: Promise.resolve(piece.rows), cancel: () => stream.destroy(), whole };
}
