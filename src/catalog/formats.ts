/**
 * The output formats, once: what each is on the wire, whether it can be a
 * download link, and how large a range it may cover (docs/api.md, "Formats
 * and envelopes" and "Ranges"). The encoder, link mode, range checks, OpenAPI,
 * the parameter docs and the MCP tools read this table.
 */
import type { Format, RangeLimit } from './types.ts';

export interface FormatInfo {
  /** The media type, as OpenAPI names it. */
  readonly mediaType: string;
  /** The Content-Type header of an answer in this format. */
  readonly contentType: string;
  /** File extension of a download, without the dot. */
  readonly extension: string;
  /** Rows are answered inline, wrapped in the JSON envelope `{status, events, count}`; otherwise the body is a file, sent as an attachment. */
  readonly envelope: boolean;
  /** Can be written to storage and handed out as a download link (`link=true`). */
  readonly link: boolean;
  /** Bytes rather than text (OpenAPI `format: binary`). */
  readonly binary: boolean;
  /** The widest range a chain query may cover in this format, on `network`. */
  rangeLimit(network: string): RangeLimit;
}

export const SECONDS_PER_DAY = 86_400;
const inlineLimit = (): RangeLimit => ({ blocks: 10_000, seconds: SECONDS_PER_DAY });

export const FORMATS = {
  json: {
    mediaType: 'application/json',
    contentType: 'application/json; charset=utf-8',
    extension: 'json',
    envelope: true,
    link: false,
    binary: false,
    rangeLimit: inlineLimit,
  },
  csv: {
    mediaType: 'text/csv',
    contentType: 'text/csv; charset=utf-8',
    extension: 'csv',
    envelope: false,
    link: true,
    binary: false,
    rangeLimit: inlineLimit,
  },
  parquet: {
    mediaType: 'application/vnd.apache.parquet',
    contentType: 'application/vnd.apache.parquet',
    extension: 'parquet',
    envelope: false,
    link: true,
    binary: true,
    rangeLimit: (network: string): RangeLimit => ({ blocks: network === 'ARB' ? 1_000_000 : 100_000, seconds: 7 * SECONDS_PER_DAY }),
  },
} as const satisfies Readonly<Record<Format, FormatInfo>>;

/** Whether `name` is one of the formats: a narrowing, so that a parameter's value becomes a Format without a cast. */
export const isFormat = (name: string): name is Format => Object.hasOwn(FORMATS, name);

export const FORMAT_NAMES: readonly Format[] = Object.keys(FORMATS).filter(isFormat);

/** The formats a link can hand out. */
export type LinkFormat = { [F in Format]: (typeof FORMATS)[F]['link'] extends true ? F : never }[Format];

export const LINK_FORMATS = FORMAT_NAMES.filter((f): f is LinkFormat => FORMATS[f].link);

export const isLinkFormat = (f: Format): f is LinkFormat => FORMATS[f].link;

/** Range limit of `format` on `network` (EVM, Tron and Bitcoin). */
export const rangeLimit = (format: Format, network: string): RangeLimit => FORMATS[format].rangeLimit(network);
