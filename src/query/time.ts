/** Parsing of the `since`/`until` values a user may send (docs/api.md, "Ranges"). */

const BARE_DATE = /^\d{4}-\d{2}-\d{2}$/;
const ISO_WITH_ZONE = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i;
const UNIX_SECONDS = /^\d{1,12}(\.\d{1,6})?$/;

/** Epoch milliseconds, or null when the text is not an accepted time. */
export function parseTime(text: string): number | null {
  const s = text.trim();
  if (UNIX_SECONDS.test(s)) return Math.round(Number(s) * 1000);
  if (BARE_DATE.test(s)) {
    const ms = Date.parse(`${s}T00:00:00Z`);
    return Number.isNaN(ms) ? null : ms;
  }
  if (ISO_WITH_ZONE.test(s)) {
    const ms = Date.parse(s.replace(' ', 'T'));
    return Number.isNaN(ms) ? null : ms;
  }
  return null;
}

/** A DuckDB TIMESTAMP literal value (UTC) for epoch milliseconds, to bind as a parameter. */
export function toSqlTimestamp(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
}

export const isoSeconds = (ms: number): string => new Date(ms).toISOString().replace('.000Z', 'Z');
