/**
 * Following a raw event endpoint live (its `/stream` route): the server-sent
 * events as the table reads them. Rows are kept with their block, so that an
 * `undo` (the chain reorganised) takes away exactly the rows of the blocks it
 * voids.
 */
import type { Cell } from './rows.ts';

export type Row = Readonly<Record<string, Cell>>;

export interface FollowState {
  /** The rows received and not undone, oldest first. */
  readonly rows: readonly Row[];
  /** The last cursor received: a client resumes after it. */
  readonly cursor: string | null;
  /** Delivered up to this block. */
  readonly delivered: number | null;
  /** The newest block the server knows. */
  readonly head: number | null;
  /** Blocks charged so far. */
  readonly cost: number;
  /** Rows taken away by undo events. */
  readonly undone: number;
  readonly status: 'following' | 'ended' | 'stopped' | 'failed';
  readonly error: string | null;
}

export const FOLLOW_START: FollowState = { rows: [], cursor: null, delivered: null, head: null, cost: 0, undone: 0, status: 'following', error: null };

/** One event of the stream, as the wire names it. */
export interface WireEvent {
  readonly event: string;
  readonly id: string | null;
  readonly data: string;
}

interface Fields {
  readonly [field: string]: unknown;
}

const num = (v: unknown): number | null => (typeof v === 'number' ? v : null);

/** The state after one event. Unknown event types (a newer server) change nothing. */
export function applyEvent(s: FollowState, e: WireEvent): FollowState {
  let data: Fields;
  try {
    const parsed: unknown = JSON.parse(e.data);
    if (typeof parsed !== 'object' || parsed === null) return s;
    data = parsed as Fields;
  } catch {
    return { ...s, status: 'failed', error: `the server sent an unreadable ${e.event} event` };
  }
  const cursor = e.id ?? s.cursor;
  switch (e.event) {
    case 'rows': {
      const events = Array.isArray(data.events) ? (data.events as Row[]) : [];
      return { ...s, cursor, rows: [...s.rows, ...events], delivered: num(data.to_block) ?? s.delivered };
    }
    case 'undo': {
      const block = num(data.block_number);
      if (block === null) return s;
      const kept = s.rows.filter((r) => typeof r.block_number !== 'number' || r.block_number <= block);
      return { ...s, cursor, rows: kept, undone: s.undone + s.rows.length - kept.length, delivered: block };
    }
    case 'progress':
      return { ...s, cursor, delivered: num(data.block_number) ?? s.delivered, head: num(data.head) ?? s.head, cost: num(data.cost) ?? s.cost };
    case 'end':
      return { ...s, cursor, delivered: num(data.block_number) ?? s.delivered, status: 'ended' };
    case 'error':
      return { ...s, status: 'failed', error: typeof data.error === 'string' ? data.error : 'the stream failed' };
    default:
      return s;
  }
}

/** The stream route of a raw event route (`/v1/evm/erc20/events/transfer` → `…/transfer/stream`); null for a route that has none. */
export function streamPathOf(route: { readonly path: string; readonly kind: string; readonly family: string }): string | null {
  if (route.kind !== 'raw' || !['evm', 'tron', 'btc'].includes(route.family) || !route.path.includes('/events/')) return null;
  return `${route.path}/stream`;
}
