/** Response headers of chainq's extensions (docs/api.md), named once for the planner, the server and OpenAPI. */

/** The range a data answer is complete for. */
export const COVERED_RANGE_HEADER = 'x-chainq-covered-range';

/** Tokens `ignore_unknown_tokens=true` dropped, each percent-encoded, comma-separated. */
export const DROPPED_TOKENS_HEADER = 'x-chainq-dropped-tokens';

/** The cursor a pull with `cursor=` continues from next (docs/api.md, "Streams and cursors"). */
export const NEXT_CURSOR_HEADER = 'x-chainq-next-cursor';
