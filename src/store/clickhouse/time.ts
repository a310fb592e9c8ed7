/** Times as ClickHouse's DateTime64(3, 'UTC') columns read and write them. */

/** `YYYY-MM-DD hh:mm:ss.mmm` in UTC, as DateTime64(3, 'UTC') parses it. */
export function clickHouseTime(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
}

/** A DateTime64 read back as JSON text (`YYYY-MM-DD hh:mm:ss.mmm`, UTC) as a Date. */
export function parseClickHouseTime(text: string | null): Date | null {
  return text === null ? null : new Date(`${text.replace(' ', 'T')}Z`);
}
