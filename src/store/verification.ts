/**
 * What `chainq verify` asks of the engine: a count and a content hash of the
 * rows of one dataset per block, and the record of each verification.
 *
 * The hash of a block is the MD5 of the texts of its rows, sorted and joined
 * by newlines: it changes with any column of any row, with a row missing or
 * doubled, and not with the order rows were appended in. Each engine writes
 * a row's text its own way, so the rows read from the node are hashed by the
 * same engine as the stored ones (`store.verification`, implemented per
 * engine): the rows are decoded into an in-memory store (a DecodeStore, from
 * ./openStore.ts) and digested by the engine of the store they are compared with.
 */
import type { TableDef } from '../catalog/types.ts';
import type { BlockDigests, DecodeStore, Store, TableRow, VerificationRecord } from './types.ts';

export type { BlockDigest, BlockDigests, VerificationRecord } from './types.ts';

/** Count and hash, per block, of the rows the store holds for each of `tables` on `network` in blocks [lo, hi], in the order of `tables`. */
export const storedBlockDigests = (store: Store, tables: readonly TableDef[], network: string, lo: number, hi: number): Promise<BlockDigests[]> => store.verification.digests(tables, network, lo, hi);

/**
 * The same digests of rows decoded from a node into `decoded` (written by
 * ingestion's own batch writer), computed by the engine of `store`.
 */
export const decodedBlockDigests = (store: Store, decoded: DecodeStore, tables: readonly TableDef[], network: string, lo: number, hi: number): Promise<BlockDigests[]> =>
  store.verification.decodedDigests(decoded, tables, network, lo, hi);

/** Empties the store rows were decoded into, between two batches: the tables written, their blocks and coverage, whole. */
export const clearDecoded = (decoded: DecodeStore, tables: readonly TableDef[]): Promise<void> => decoded.clearDecoded(tables);

/** Puts `rows` (columns in table order) in `table` of the decode store, in place of whatever an earlier batch left there. */
export const replaceDecodedRows = (decoded: DecodeStore, table: TableDef, rows: readonly TableRow[]): Promise<void> => decoded.replaceDecodedRows(table, rows);

/** Records one verification run's outcome, one record per dataset. */
export const recordVerifications = (store: Store, records: readonly VerificationRecord[]): Promise<void> => store.verification.record(records);

/** Every recorded verification of the given datasets (null: of every dataset), oldest first. */
export const verificationRecords = (store: Store, datasets: readonly string[] | null): Promise<VerificationRecord[]> => store.verification.records(datasets);
