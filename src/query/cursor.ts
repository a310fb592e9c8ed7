/**
 * Stream and pull cursors (docs/api.md, "Streams and cursors"): opaque
 * base64url text naming the endpoint, the network, the last block delivered
 * whole and its hash. The hash is what lets a resumed stream or a pull notice
 * that the block was rolled back since; it is null for a position before any
 * block the store holds (nothing there can be rolled back).
 */
import { ApiError } from '../errors/apiError.ts';

export interface Cursor {
  /** The catalog id of the endpoint, e.g. evm/erc20/transfer. */
  readonly endpoint: string;
  readonly network: string;
  readonly block: number;
  readonly hash: string | null;
}

const VERSION = 1;

interface CursorText {
  readonly v: number;
  readonly e: string;
  readonly n: string;
  readonly b: number;
  readonly h: string | null;
}

export function encodeCursor(c: Cursor): string {
  const text: CursorText = { v: VERSION, e: c.endpoint, n: c.network, b: c.block, h: c.hash };
  return Buffer.from(JSON.stringify(text)).toString('base64url');
}

function invalid(why: string): ApiError {
  return new ApiError('invalid_cursor', `cursor is not valid here: ${why}; use a cursor this endpoint handed out for the same network`, { parameter: 'cursor' });
}

function parseText(text: string): unknown {
  if (!/^[A-Za-z0-9_-]{1,1024}$/.test(text)) throw invalid('it is not base64url text');
  try {
    return JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw invalid('it does not decode');
  }
}

function isCursorText(v: unknown): v is CursorText {
  if (typeof v !== 'object' || v === null) return false;
  const o: Partial<Record<keyof CursorText, unknown>> = v;
  return (
    o.v === VERSION &&
    typeof o.e === 'string' &&
    typeof o.n === 'string' &&
    typeof o.b === 'number' &&
    Number.isSafeInteger(o.b) &&
    o.b >= -1 &&
    (o.h === null || (typeof o.h === 'string' && o.h.length > 0))
  );
}

/** The cursor in `text`, checked against the endpoint and network it is used on; 400 invalid_cursor otherwise. */
export function decodeCursor(text: string, endpoint: string, network: string): Cursor {
  const v = parseText(text);
  if (!isCursorText(v)) throw invalid('it is not a chainq cursor');
  if (v.e !== endpoint) throw invalid(`it was made by ${v.e}, not ${endpoint}`);
  if (v.n !== network) throw invalid(`it was made on network ${v.n}, not ${network}`);
  return { endpoint: v.e, network: v.n, block: v.b, hash: v.h };
}
