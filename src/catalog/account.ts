/**
 * The account endpoints: what a key may ask about itself. Described here, like
 * the data endpoints, so that the route's parameters, OpenAPI, the endpoint
 * reference, the client's types and the explorer all come from one place.
 */
import type { Params } from './types.ts';

/** A field of an account response: its JSON type, whether it may be null, and its meaning. */
export interface ResponseField {
  readonly name: string;
  readonly type: 'integer' | 'string' | 'object[]';
  readonly nullable?: boolean;
  readonly description: string;
  /** The fields of each object of an `object[]` field. */
  readonly items?: readonly ResponseField[];
}

export interface AccountEndpoint {
  readonly id: string;
  readonly path: string;
  readonly summary: string;
  readonly params: Params;
  readonly fields: readonly ResponseField[];
}

/** How many recent charges GET /v1/usage lists by default, and at most. */
export const USAGE_CHARGES_DEFAULT = 10;
export const USAGE_CHARGES_MAX = 50;

export const usageEndpoint: AccountEndpoint = {
  id: 'account/usage',
  path: '/v1/usage',
  summary: "The calling key's plan, limits, blocks used and left this month, when the budget resets, and its latest charges. Free; counts against the per-minute limit.",
  params: {
    charges: {
      type: 'integer',
      minimum: 0,
      default: USAGE_CHARGES_DEFAULT,
      description: `How many of the latest charges of this month to list, newest first (at most ${USAGE_CHARGES_MAX}).`,
    },
  },
  fields: [
    { name: 'plan', type: 'string', description: "Name of the key's plan." },
    { name: 'requests_per_minute', type: 'integer', nullable: true, description: 'Per-minute request limit; null when the plan has none.' },
    { name: 'monthly_blocks', type: 'integer', nullable: true, description: 'Monthly block budget; null when the plan has none.' },
    {
      name: 'concurrent_requests',
      type: 'integer',
      nullable: true,
      description: 'Requests of the key that may be in flight at once on one server (streaming included); one more answers 429 rate_limited with Retry-After: 1. Null when the plan has no such limit.',
    },
    { name: 'month', type: 'string', description: 'The budget month, YYYY-MM (UTC).' },
    { name: 'blocks_used', type: 'integer', description: 'Blocks charged to the key this month.' },
    {
      name: 'blocks_left',
      type: 'integer',
      nullable: true,
      description: 'Blocks left this month: the budget less blocks charged and blocks held by requests still streaming (X-RateLimit-Remaining). Null when the plan has no budget.',
    },
    { name: 'requests_charged', type: 'integer', description: 'Requests charged to the key this month.' },
    { name: 'requests_this_minute', type: 'integer', description: 'Requests counted in the current one-minute window, this one included (0 when the plan has no per-minute limit).' },
    { name: 'resets_at', type: 'string', description: 'When the monthly budget resets: 00:00 UTC on the first day of next month (ISO 8601).' },
    {
      name: 'last_charges',
      type: 'object[]',
      description: 'The latest charges of this month, newest first.',
      items: [
        { name: 'request_id', type: 'string', description: 'The X-Request-Id of the charged request.' },
        { name: 'endpoint', type: 'string', nullable: true, description: 'The route charged, without its query string.' },
        { name: 'cost', type: 'integer', description: 'Blocks charged.' },
        { name: 'admitted_at', type: 'string', description: 'When the request arrived (ISO 8601).' },
        { name: 'charged_at', type: 'string', description: 'When the charge was recorded (ISO 8601).' },
      ],
    },
  ],
};

export const accountEndpoints: readonly AccountEndpoint[] = [usageEndpoint];
