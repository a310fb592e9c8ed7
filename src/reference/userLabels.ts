/**
 * Label namespaces (chainq's extension, docs/labels.md): a key's own address
 * labels, uploaded as CSV, that the label and category filters also match
 * under `wallet_namespace=`. A namespace belongs to the key that created it:
 * every read and write here is scoped by that key's id, so another key's
 * namespaces do not exist for it.
 */
import { parse } from 'csv-parse/sync';
import { networkInfo } from '../catalog/networks.ts';
import { ApiError } from '../errors/apiError.ts';
import { LABEL_CSV_COLUMNS, type LabelRow, type NamespaceInfo, type Store } from '../store/types.ts';
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

export { LABEL_CSV_COLUMNS, type LabelRow, type NamespaceInfo } from '../store/types.ts';

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

/** Replaces (or creates) the key's namespace with `rows`, atomically. */
export async function putNamespace(store: Store, keyId: string, namespace: string, rows: readonly LabelRow[]): Promise<{ created: boolean; info: NamespaceInfo }> {
  const out = await store.labelNamespaces.put(keyId, namespace, rows, LABEL_LIMITS.namespaces);
  if (!out) {
    throw new ApiError('invalid_parameter', `this key already holds ${LABEL_LIMITS.namespaces} label namespaces, the most one key may hold; delete one first`, {
      parameter: 'namespace',
      limit: LABEL_LIMITS.namespaces,
    });
  }
  return out;
}

export function listNamespaces(store: Store, keyId: string): Promise<NamespaceInfo[]> {
  return store.labelNamespaces.list(keyId);
}

export function namespaceExists(store: Store, keyId: string, namespace: string): Promise<boolean> {
  return store.labelNamespaces.exists(keyId, namespace);
}

export function deleteNamespace(store: Store, keyId: string, namespace: string): Promise<boolean> {
  return store.labelNamespaces.delete(keyId, namespace);
}

export function notFound(namespace: string): ApiError {
  // The same answer whether the namespace is another key's or nobody's.
  return new ApiError('not_found', `no label namespace '${namespace}' for this key; PUT /v1/labels/${namespace} creates it`);
}
