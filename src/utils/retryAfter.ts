/**
 * An HTTP Retry-After value as milliseconds to wait: delta-seconds (a
 * fraction is tolerated) or an HTTP date, a date in the past being 0.
 * Undefined when the header is absent or unreadable.
 */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (value === null || value === undefined || value.trim() === '') return undefined;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  // An HTTP date names its day and month; without a letter, Date.parse would read '-3' as a year.
  if (!/[a-z]/i.test(v)) return undefined;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
