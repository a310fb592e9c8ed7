/**
 * Label namespaces (chainq's extension, docs/labels.md): a key's own address
 * labels, uploaded as CSV, that the label and category filters also match
 * under `wallet_namespace=`. A namespace belongs to the key that created it:
 * every read and write here is scoped by that key's id, so another key's
 * namespaces do not exist for it.
 */
import { clickHouseOf } from '../store/clickhouse/createClickHouseStore.ts';
import { exportSelectList } from '../store/clickhouse/format.ts';
import { rewriteTables } from '../store/clickhouse/publish.ts';
import { parse } from 'csv-parse/sync';
import { networkInfo } from '../catalog/networks.ts';
import { ApiError } from '../errors/apiError.ts';
import type { Store } from '../store/createStore.ts';
import { isTronBase58 } from '../utils/tronAddress.ts';

export const LABEL_LIMITS = {
  /** Rows in one namespace. */
  rows: 50_000,
  /** Bytes of one CSV upload. */
  bytes: 5 * 1024 * 1024,
  /** Namespaces one key may hold. */
  namespaces: 20,
  labelChars: 200,
  categoryChars: 64,
} as const;

/** Lower-case letters, digits, `-` and `_`, 1–64 characters, starting with a letter or digit. */
export const NAMESPACE_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;

export const LABEL_CSV_COLUMNS = ['address', 'label', 'category', 'network'] as const;

/** One parsed row: the stored address, label, lower-case category, upper-case network or null (every network). */
export type LabelRow = readonly [address: string, label: string, category: string, network: string | null];

export function namespaceName(raw: string): string {
  const name = raw.trim().toLowerCase();
  if (!NAMESPACE_NAME.test(name)) {
    throw new ApiError('invalid_parameter', `namespace '${raw}' is not a valid name: 1–64 of a-z, 0-9, - and _, starting with a letter or digit`, { parameter: 'namespace' });
  }
  return name;
}

const EVM = /^0x[0-9a-fA-F]{40}$/;
const TRON = /^T[1-9A-HJ-NP-Za-km-z]{33}$/;
const BTC = /^(bc1[02-9ac-hj-np-z]{6,87}|BC1[02-9AC-HJ-NP-Z]{6,87}|[13][1-9A-HJ-NP-Za-km-z]{25,34})$/;

/** An address in the form the datasets store it (EVM lower case, Tron base58, Bitcoin bech32 lower case), or null. */
function storedAddress(v: string): string | null {
  if (EVM.test(v)) return v.toLowerCase();
  if (TRON.test(v) && isTronBase58(v)) return v;
  if (BTC.test(v)) return v.startsWith('BC1') ? v.toLowerCase() : v;
  return null;
}

const badCsv = (line: number, reason: string) => new ApiError('invalid_body', `label CSV line ${line}: ${reason}`, { line, reason });

interface CsvRecord {
  record: string[];
  info: { lines: number };
}

/**
 * Reads a label CSV (RFC 4180, header `address,label,category[,network]`)
 * with csv-parse, and checks every row. The first bad line is a 400
 * invalid_body naming the line and the reason. Label text is data: it is
 * only ever bound as a parameter, never spliced into SQL.
 */
export function parseLabelCsv(text: string): LabelRow[] {
  let records: CsvRecord[];
  try {
    records = parse(text, { info: true, relax_column_count: true, skip_empty_lines: true, bom: true, trim: true }) as unknown as CsvRecord[];
  } catch (e) {
    const err = e as { lines?: number; message?: string };
    throw badCsv(err.lines ?? 0, `not valid CSV (${(err.message ?? 'unreadable').replace(/ on line \d+$/, '')})`);
  }
  const [header, ...rows] = records;
  const names = header?.record.map((h) => h.toLowerCase()) ?? [];
  const expected3 = LABEL_CSV_COLUMNS.slice(0, 3).join(',');
  if (names.join(',') !== expected3 && names.join(',') !== LABEL_CSV_COLUMNS.join(',')) {
    throw badCsv(header?.info.lines ?? 1, `the header must be ${expected3} or ${LABEL_CSV_COLUMNS.join(',')}, got '${names.join(',')}'`);
  }
  if (rows.length > LABEL_LIMITS.rows) throw badCsv(rows[LABEL_LIMITS.rows]!.info.lines, `more than ${LABEL_LIMITS.rows} rows; a namespace holds at most ${LABEL_LIMITS.rows}`);
  const out: LabelRow[] = [];
  for (const { record, info } of rows) {
    const line = info.lines;
    if (record.length !== names.length) throw badCsv(line, `expected ${names.length} fields, got ${record.length}`);
    const [rawAddress, label, rawCategory, rawNetwork = ''] = record as [string, string, string, string?];
    const address = storedAddress(rawAddress);
    if (!address) throw badCsv(line, `'${rawAddress.slice(0, 100)}' is not an EVM, Tron or Bitcoin address`);
    if (label === '') throw badCsv(line, 'the label is empty');
    if (label.length > LABEL_LIMITS.labelChars) throw badCsv(line, `the label is longer than ${LABEL_LIMITS.labelChars} characters`);
    if (/[\r\n]/.test(label) || /[\r\n]/.test(rawCategory)) throw badCsv(line, 'a label or category contains a line break');
    if (rawCategory.length > LABEL_LIMITS.categoryChars) throw badCsv(line, `the category is longer than ${LABEL_LIMITS.categoryChars} characters`);
    const network = rawNetwork === '' ? null : rawNetwork.toUpperCase();
    if (network !== null && !networkInfo(network)) throw badCsv(line, `unknown network '${rawNetwork.slice(0, 40)}'`);
    out.push([address, label, rawCategory.toLowerCase(), network]);
  }
  return out;
}

export interface NamespaceInfo {
  readonly namespace: string;
  readonly rows: number;
  readonly updated_at: string;
}

/** Replaces (or creates) the key's namespace with `rows`, in one transaction. */
export async function putNamespace(store: Store, keyId: string, namespace: string, rows: readonly LabelRow[]): Promise<{ created: boolean; info: NamespaceInfo }> {
  const ch = clickHouseOf(store);
  if (ch) return rewriteTables(ch, NAMESPACE_TABLES, (scratch) => putNamespace(scratch, keyId, namespace, rows));
  return store.transaction(async (tx) => {
    const owned = await tx.all<{ namespace: string }>(`SELECT namespace FROM label_namespaces WHERE key_id = $keyId`, { keyId });
    const created = !owned.some((o) => o.namespace === namespace);
    if (created && owned.length >= LABEL_LIMITS.namespaces) {
      throw new ApiError('invalid_parameter', `this key already holds ${LABEL_LIMITS.namespaces} label namespaces, the most one key may hold; delete one first`, {
        parameter: 'namespace',
        limit: LABEL_LIMITS.namespaces,
      });
    }
    await tx.run(`DELETE FROM user_labels WHERE key_id = $keyId AND namespace = $namespace`, { keyId, namespace });
    await tx.run(`DELETE FROM label_namespaces WHERE key_id = $keyId AND namespace = $namespace`, { keyId, namespace });
    const now = new Date();
    await tx.append(
      'user_labels',
      rows.map((r, i) => [keyId, namespace, i + 1, r[0], r[1], r[2], r[3]]),
    );
    await tx.append('label_namespaces', [[keyId, namespace, rows.length, now]]);
    return { created, info: { namespace, rows: rows.length, updated_at: now.toISOString() } };
  });
}

export async function listNamespaces(store: Store, keyId: string): Promise<NamespaceInfo[]> {
  const ch = clickHouseOf(store);
  const rows = ch
    ? await ch.query<{ namespace: string; rows: number; updated_at: string }>(
        `SELECT namespace, rows, concat(formatDateTime(updated_at, '%Y-%m-%dT%H:%i:%S', 'UTC'), '.',
              leftPad(toString(toUnixTimestamp64Milli(updated_at) % 1000), 3, '0'), 'Z') AS updated_at
       FROM ${ch.table('label_namespaces')} FINAL WHERE key_id = {keyId:String} ORDER BY namespace`,
        { keyId },
      )
    : await store.all<{ namespace: string; rows: number; updated_at: string }>(
        `SELECT namespace, rows, strftime(updated_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS updated_at FROM label_namespaces WHERE key_id = $keyId ORDER BY namespace`,
        { keyId },
      );
  return rows.map((r) => ({ namespace: r.namespace, rows: Number(r.rows), updated_at: r.updated_at }));
}

export async function namespaceExists(store: Store, keyId: string, namespace: string): Promise<boolean> {
  const ch = clickHouseOf(store);
  if (ch) {
    const found = await ch.query(`SELECT 1 FROM ${ch.table('label_namespaces')} FINAL WHERE key_id = {keyId:String} AND namespace = {namespace:String}`, { keyId, namespace });
    return found.length > 0;
  }
  const rows = await store.all(`SELECT 1 FROM label_namespaces WHERE key_id = $keyId AND namespace = $namespace`, { keyId, namespace });
  return rows.length > 0;
}

export async function deleteNamespace(store: Store, keyId: string, namespace: string): Promise<boolean> {
  const ch = clickHouseOf(store);
  if (ch) return rewriteTables(ch, NAMESPACE_TABLES, (scratch) => deleteNamespace(scratch, keyId, namespace));
  return store.transaction(async (tx) => {
    const rows = await tx.all(`SELECT 1 FROM label_namespaces WHERE key_id = $keyId AND namespace = $namespace`, { keyId, namespace });
    if (rows.length === 0) return false;
    await tx.run(`DELETE FROM user_labels WHERE key_id = $keyId AND namespace = $namespace`, { keyId, namespace });
    await tx.run(`DELETE FROM label_namespaces WHERE key_id = $keyId AND namespace = $namespace`, { keyId, namespace });
    return true;
  });
}

/**
 * The statement that lists a namespace as the CSV it was uploaded as (in
 * upload order), in the store's dialect; parameters `keyId`, `namespace`. On
 * ClickHouse each field is written as DuckDB's CSV writes it (docs/storage.md).
 */
export function namespaceCsvSql(store: Store): string {
  const ch = clickHouseOf(store);
  if (ch) {
    const fields = exportSelectList(
      LABEL_CSV_COLUMNS.map((name) => ({ sql: `u.${name}`, name, type: 'string' as const })),
      'csv',
    );
    return `SELECT ${fields} FROM ${ch.table('user_labels')} AS u
      WHERE u.key_id = {keyId:String} AND u.namespace = {namespace:String} ORDER BY u.pos`;
  }
  return `SELECT address, label, category, network FROM user_labels WHERE key_id = $keyId AND namespace = $namespace ORDER BY pos`;
}

/**
 * On ClickHouse a namespace change rewrites these tables in the scratch store
 * and swaps each in whole (docs/storage.md), labels first: a reader may see
 * the new labels a moment before the new namespace list, never half of either.
 */
const NAMESPACE_TABLES = ['user_labels', 'label_namespaces'];

export function notFound(namespace: string): ApiError {
  // The same answer whether the namespace is another key's or nobody's.
  return new ApiError('not_found', `no label namespace '${namespace}' for this key; PUT /v1/labels/${namespace} creates it`);
}
