/**
 * How ClickHouse encodes each API format so that its bytes are DuckDB's
 * (docs/storage.md, "The same bytes on both engines"): the output FORMAT and
 * its settings, and the expression that turns each output column into what
 * DuckDB's `COPY … (FORMAT csv|json|parquet)` writes for it.
 *
 * ClickHouse's own CSV and JSON writers differ from DuckDB's in a few
 * places (CSV quotes every text field and writes NULL as `\N`; a whole float
 * is `1000000` where DuckDB writes `1000000.0`; CSV floats use another
 * exponent form). So CSV and JSON rows are written by ClickHouse's
 * `CustomSeparated` format with the `Raw` escaping rule, each field already
 * the exact text DuckDB writes, computed by the engine from the column's
 * neutral type (`ColumnType`). Parquet keeps ClickHouse's writer; every
 * column is made Nullable, as DuckDB writes every column OPTIONAL.
 */
import type { ColumnType, Format } from '../../catalog/types.ts';
import { ident, quote } from './sql.ts';

export interface ClickHouseExportFormat {
  readonly format: string;
  readonly settings: Readonly<Record<string, string | number>>;
}

/** Fields written as they are: the SELECT list has already made each field's text. */
const RAW_FIELDS = {
  short_circuit_function_evaluation: 'force_enable',
  format_custom_escaping_rule: 'Raw',
  format_custom_field_delimiter: ',',
  format_custom_row_between_delimiter: '',
  format_custom_result_before_delimiter: '',
  format_custom_result_after_delimiter: '',
} as const;

export function clickHouseExport(format: Format): ClickHouseExportFormat {
  switch (format) {
    // The header is the column aliases, which the SELECT list makes DuckDB's header text.
    case 'csv':
      return { format: 'CustomSeparatedWithNames', settings: { ...RAW_FIELDS, format_custom_row_before_delimiter: '', format_custom_row_after_delimiter: '\n' } };
    // One JSON object per line, as DuckDB's newline-delimited JSON; the envelope is added by output/.
    case 'json':
      return {
        format: 'CustomSeparated',
        settings: { ...RAW_FIELDS, format_custom_row_before_delimiter: '{', format_custom_row_after_delimiter: '}\n', output_format_json_escape_forward_slashes: 0 },
      };
    case 'parquet':
      return {
        format: 'Parquet',
        settings: { output_format_parquet_compression_method: 'zstd', output_format_parquet_string_as_string: 1 },
      };
  }
}

/** One output column: the engine expression of its value, its name, and its neutral type. */
export interface ExportColumn {
  readonly sql: string;
  readonly name: string;
  readonly type: ColumnType;
}

/**
 * The SELECT list of an export in `format`: each column as DuckDB writes it.
 * Names come from the catalog and the planners, never from a request.
 */
export function exportSelectList(columns: readonly ExportColumn[], format: Format): string {
  return columns
    .map((c) => {
      switch (format) {
        case 'csv':
          return `${csvField(c.sql, c.type)} AS ${ident(csvText(c.name))}`;
        case 'json':
          return `concat(${quote(`${jsonString(c.name)}:`)}, ${jsonValue(c.sql, c.type)}) AS ${ident(c.name)}`;
        case 'parquet':
          return `toNullable(${c.sql}) AS ${ident(c.name)}`;
      }
      throw new Error(`unknown format ${format satisfies never}`);
    })
    .join(', ');
}

/**
 * DuckDB's CSV text of a string: quoted (quotes doubled) when it is empty
 * (an empty field is NULL) or holds a comma, a quote, CR or LF; else as is.
 */
export function csvText(s: string): string {
  return s === '' || /[,"\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** The same rule in the engine, for a column's value; NULL is an empty field. */
function csvString(sql: string): string {
  return `ifNull(if(${sql} = '' OR multiSearchAny(${sql}, [',', '"', '\\r', '\\n']), concat('"', replaceAll(${sql}, '"', '""'), '"'), ${sql}), '')`;
}

function csvField(sql: string, type: ColumnType): string {
  switch (type) {
    case 'string':
      return csvString(sql);
    case 'double':
      return `ifNull(${csvDouble(sql)}, '')`;
    case 'integer':
    case 'boolean':
      return `ifNull(toString(${sql}), '')`;
  }
}

/**
 * DuckDB's JSON text of a name: JSON.stringify's, but with DuckDB's
 * upper-case hex in `\u00XX` escapes.
 */
export function jsonString(s: string): string {
  return JSON.stringify(s).replace(/\\u([0-9a-f]{4})/g, (_m, hex: string) => `\\u${hex.toUpperCase()}`);
}

const LINE_SEPARATOR = `'\\xE2\\x80\\xA8'`;
const PARAGRAPH_SEPARATOR = `'\\xE2\\x80\\xA9'`;

/**
 * ClickHouse's JSON string writer escapes as DuckDB's does (forward slashes
 * are left alone by the format's setting), except that it also escapes
 * U+2028 and U+2029, which DuckDB writes as they are: text holding either is
 * escaped piece by piece around them.
 */
function jsonText(sql: string): string {
  const inner = (piece: string) => `substring(toJSONString(${piece}), 2, length(toJSONString(${piece})) - 2)`;
  const around = (text: string, sep: string, each: (p: string) => string, v: string) => `arrayStringConcat(arrayMap(${v} -> ${each(v)}, splitByString(${sep}, ${text})), ${sep})`;
  const pieces = around(sql, LINE_SEPARATOR, (a) => around(a, PARAGRAPH_SEPARATOR, inner, '__p'), '__l');
  return `if(multiSearchAny(${sql}, [${LINE_SEPARATOR}, ${PARAGRAPH_SEPARATOR}]), concat('"', ${pieces}, '"'), toJSONString(${sql}))`;
}

function jsonValue(sql: string, type: ColumnType): string {
  switch (type) {
    case 'string':
      return `ifNull(${jsonText(sql)}, 'null')`;
    case 'double':
      return `ifNull(${jsonDouble(sql)}, 'null')`;
    case 'integer':
    case 'boolean':
      return `ifNull(toString(${sql}), 'null')`;
  }
}

/*
 * Floats. Both engines print the shortest decimal digits that read back as
 * the same double; they lay them out differently. ClickHouse's `toString`
 * writes plain decimals for exponents -6…20 (0.0000015, 123000000000000000000)
 * and `1.5e-7`, `1e21` outside. DuckDB's JSON uses the same ranges but ends a
 * whole number in `.0`, and writes NaN, Infinity, -Infinity. DuckDB's CSV
 * writes plain decimals for exponents -4…15 only (whole numbers ending in
 * `.0`), else `d.ddde±XX` with at least two exponent digits (`1e-05`,
 * `1.23e+20`), and nan, inf, -inf as ClickHouse does.
 */

/** A whole number that ClickHouse writes in plain decimals (exponent below 21), hence without a point. */
const plainWhole = (sql: string): string => `${sql} = floor(${sql}) AND abs(${sql}) < 1e21`;

function jsonDouble(sql: string): string {
  const s = `toString(${sql})`;
  return `multiIf(isNaN(${sql}), 'NaN', isInfinite(${sql}), if(${sql} > 0, 'Infinity', '-Infinity'), ${plainWhole(sql)}, concat(${s}, '.0'), ${s})`;
}

/** At least two digits (leftPad would cut a third). */
const twoDigits = (digits: string): string => `if(length(${digits}) < 2, concat('0', ${digits}), ${digits})`;

function csvDouble(sql: string): string {
  const s = `toString(${sql})`;
  const sign = `if(startsWith(${s}, '-'), '-', '')`;
  // Already in exponent form: ClickHouse's exponents lie outside DuckDB's plain range too; only the sign and width differ.
  const exp = `splitByChar('e', ${s})[2]`;
  const fromExponent = `concat(splitByChar('e', ${s})[1], 'e', if(startsWith(${exp}, '-'), '-', '+'), ${twoDigits(`ltrim(${exp}, '-')`)})`;
  // DuckDB's plain range, exponents -4…15, is |x| in [1e-4, 1e16) (or zero): decided on the number.
  // ClickHouse writes those in plain decimals too, whole numbers without a point.
  const inPlainRange = `${sql} = 0 OR (abs(${sql}) >= 1e-4 AND abs(${sql}) < 1e16)`;
  const plain = `concat(${s}, if(${sql} = floor(${sql}), '.0', ''))`;
  // Plain decimals outside it (exponents -6, -5 and 16…20): the significant digits as d.ddd, and the exponent.
  const abs = `ltrim(${s}, '-')`;
  const whole = `splitByChar('.', ${abs})[1]`;
  const fraction = `splitByChar('.', ${abs})[2]`;
  const exponent = `if(${whole} != '0', toInt32(length(${whole})) - 1, -toInt32(length(${fraction}) - length(ltrim(${fraction}, '0'))) - 1)`;
  const digits = `trim(BOTH '0' FROM concat(${whole}, ${fraction}))`;
  const mantissa = `concat(substring(${digits}, 1, 1), if(length(${digits}) > 1, concat('.', substring(${digits}, 2)), ''))`;
  const scientific = `concat(${sign}, ${mantissa}, 'e', if(${exponent} < 0, '-', '+'), ${twoDigits(`toString(abs(${exponent}))`)})`;
  return `multiIf(isNull(${sql}), NULL, NOT isFinite(${sql}), ${s}, ${inPlainRange}, ${plain}, position(${s}, 'e') > 0, ${fromExponent}, ${scientific})`;
}
