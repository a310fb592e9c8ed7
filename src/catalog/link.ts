/**
 * Link mode (docs/venues-tron-btc.md, "Link mode"): any data endpoint that can answer a file
 * format (CSV, Parquet: formats.ts) also accepts `link=true`, and then
 * answers a download URL instead of the bytes.
 */
import { isLinkFormat } from './formats.ts';
import type { Endpoint, Params } from './types.ts';

export function acceptsLink(e: Endpoint): boolean {
  return e.formats.some(isLinkFormat);
}

export function linkParams(e: Endpoint): Params {
  if (!acceptsLink(e)) return {};
  const files = e.formats
    .filter(isLinkFormat)
    .map((f) => `format=${f}`)
    .join(' or ');
  return {
    link: {
      type: 'boolean',
      default: false,
      description:
        'Write the result to storage and answer {status, url, expires_at, format, rows, bytes, sha256} instead of the data. ' +
        `The URL needs no API key and expires (1 hour by default). Needs ${files}.`,
    },
  };
}

/** The `format` parameter of a venue endpoint: its own formats, CSV by default (docs/venues-tron-btc.md, "Exchange venues"). */
export function venueFormatParams(e: Endpoint): Params {
  return {
    format: {
      type: 'string',
      case: 'lower',
      enum: e.formats,
      default: e.defaultFormat,
      description: `Output format: ${e.formats.join(', ')}; default ${e.defaultFormat}.`,
    },
  };
}
