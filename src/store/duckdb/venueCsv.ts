/**
 * How a venue CSV file is read by DuckDB's CSV reader into a table's columns.
 * Each column is parsed by the reader as the type it is stored as: reading
 * every column as text and casting it afterwards made the reader build a
 * million strings per column and cost more than three times the load itself.
 * Columns that must hold a value are read with force_not_null, so that an
 * empty cell fails the file instead of storing a null. The reader allows
 * spaces around numbers, not around true/false.
 */
import type { CsvValue, VenueCsvImport } from '../types.ts';
import type { Tx } from './types.ts';

type ReadType = 'BIGINT' | 'BOOLEAN' | 'DOUBLE' | 'INTEGER' | 'VARCHAR';
type ColumnValue = Exclude<CsvValue, { readonly kind: 'token' }>;

/** How the file writes a timestamp column: epoch digits (s, ms or µs) or 'YYYY-MM-DD HH:MM:SS'. */
type TimeForm = 'epoch' | 'text';

const ident = (column: string) => `"${column.replaceAll('"', '""')}"`;

/** The read_csv call over $file with `types` per column (every column of the file, in file order). */
function readCsvSql(f: VenueCsvImport, types: ReadonlyMap<string, ReadType>, notNull: ReadonlySet<string>): string {
  const columns = f.csvColumns.map((c) => `'${c.replaceAll("'", "''")}': '${types.get(c) ?? 'VARCHAR'}'`).join(', ');
  const forceNotNull = notNull.size ? `, force_not_null = [${[...notNull].map((c) => `'${c.replaceAll("'", "''")}'`).join(', ')}]` : '';
  return `read_csv($file, header = false, skip = ${f.header ? 1 : 0}, delim = ',', quote = '"', escape = '"',
                   auto_detect = false${forceNotNull}, columns = {${columns}})`;
}

/**
 * How each timestamp column is written, judged from the first data row:
 * files write one form throughout (the archive changed units between files,
 * not within one), and a row of the other form fails the file's load.
 */
async function timeForms(tx: Tx, f: VenueCsvImport, columns: readonly string[]): Promise<Map<string, TimeForm>> {
  const forms = new Map<string, TimeForm>();
  for (const c of new Set(columns)) {
    const [first] = await tx.all<{ digits: boolean | null }>(`SELECT regexp_full_match(trim(${ident(c)}), '[0-9]+') AS digits FROM ${readCsvSql(f, new Map(), new Set())} LIMIT 1`, {
      file: f.file,
    });
    forms.set(c, first?.digits === false ? 'text' : 'epoch');
  }
  return forms;
}

function readType(v: ColumnValue, form: TimeForm): ReadType {
  switch (v.kind) {
    case 'timestamp':
      return form === 'epoch' ? 'BIGINT' : 'VARCHAR';
    case 'double':
    case 'basisPoints':
      return 'DOUBLE';
    case 'integer':
      return 'INTEGER';
    case 'bigint':
      return 'BIGINT';
    case 'negatedBoolean':
      return 'BOOLEAN';
  }
}

/** Kinds whose empty cell is an error rather than a null. */
const REQUIRED: ReadonlySet<ColumnValue['kind']> = new Set(['timestamp', 'bigint', 'negatedBoolean', 'basisPoints']);

/** A table column's expression over the typed CSV columns and $token. */
function valueSql(v: CsvValue, forms: ReadonlyMap<string, TimeForm>): string {
  if (v.kind === 'token') return '$token';
  const c = ident(v.column);
  switch (v.kind) {
    case 'timestamp':
      // Epoch digits by magnitude: µs from 1e14, ms from 1e11, else seconds.
      return forms.get(v.column) === 'text'
        ? `trim(${c})::TIMESTAMP`
        : `(CASE WHEN ${c} >= 100000000000000 THEN make_timestamp(${c}) WHEN ${c} >= 100000000000 THEN epoch_ms(${c}) ELSE make_timestamp(${c} * 1000000) END)`;
    case 'double':
    case 'integer':
    case 'bigint':
      return c;
    case 'negatedBoolean':
      return `NOT ${c}`;
    case 'basisPoints':
      return `round(${c} * 100)::INTEGER`;
  }
}

/** `SELECT <the table's columns> FROM read_csv($file …)`, with $file and $token to bind. */
export async function venueCsvSelect(tx: Tx, f: VenueCsvImport): Promise<string> {
  const used = f.values.filter((v): v is ColumnValue => v.kind !== 'token');
  for (const v of used) if (!f.csvColumns.includes(v.column)) throw new Error(`the CSV has no column ${v.column}`);
  const forms = await timeForms(
    tx,
    f,
    used.filter((v) => v.kind === 'timestamp').map((v) => v.column),
  );
  const types = new Map<string, ReadType>();
  const notNull = new Set<string>();
  for (const v of used) {
    const type = readType(v, forms.get(v.column) ?? 'epoch');
    const before = types.get(v.column);
    if (before !== undefined && before !== type) throw new Error(`the CSV column ${v.column} is read both as ${before} and as ${type}`);
    types.set(v.column, type);
    if (REQUIRED.has(v.kind)) notNull.add(v.column);
  }
  return `SELECT ${f.values.map((v) => valueSql(v, forms)).join(', ')} FROM ${readCsvSql(f, types, notNull)}`;
}
