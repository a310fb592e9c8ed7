/**
 * A link's id is its only secret (README "Link mode"), so it must never reach
 * a log: not in a request line, not in an error naming the link's file.
 */

/** 32 random bytes in base64url, unpadded. */
export const LINK_ID = /^[A-Za-z0-9_-]{43}$/;

/** Whatever follows `/v1/links/` in a URL, valid id or not: a mistyped id is still most of a secret. */
const LINK_PATH = /(\/v1\/links\/)[^/?#\s'"]+/g;
/** A link id on its own, as in a payload's file name (`<id>.csv`, `.tmp-<id>.csv`) or object key. */
const BARE_ID = /(?:(?<![A-Za-z0-9_-])|(?<=\.tmp-))[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/g;

export const REDACTED = '[redacted]';

/** `text` with every link id replaced by `[redacted]`. */
export function redactLinkIds(text: string): string {
  return text.replace(LINK_PATH, `$1${REDACTED}`).replace(BARE_ID, REDACTED);
}
