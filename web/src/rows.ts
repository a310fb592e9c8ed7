/** Result rows as the table and chart read them: column names and cells, from JSON or CSV. */

export type Cell = string | number | boolean | null;

export interface Rows {
  readonly columns: readonly string[];
  readonly rows: readonly (readonly Cell[])[];
}

export function rowsFromJson(events: readonly Record<string, Cell>[]): Rows {
  const columns: string[] = [];
  const seen = new Set<string>();
  for (const e of events.slice(0, 50))
    for (const k of Object.keys(e))
      if (!seen.has(k)) {
        seen.add(k);
        columns.push(k);
      }
  return { columns, rows: events.map((e) => columns.map((c) => e[c] ?? null)) };
}

/** RFC 4180 CSV with a header row, as chainq writes it; numeric-looking fields become numbers. */
export function rowsFromCsv(text: string): Rows {
  const records: string[][] = [];
  let field = '';
  let record: string[] = [];
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else quoted = false;
      } else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      record.push(field);
      field = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      record.push(field);
      records.push(record);
      record = [];
      field = '';
    } else field += ch;
  }
  if (field !== '' || record.length) {
    record.push(field);
    records.push(record);
  }
  const [header = [], ...body] = records;
  const cell = (s: string): Cell => (s === '' ? null : /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(s) && s.length < 16 ? Number(s) : s);
  return { columns: header, rows: body.map((r) => r.map(cell)) };
}

export function compareCells(a: Cell, b: Cell): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a).localeCompare(String(b));
}
