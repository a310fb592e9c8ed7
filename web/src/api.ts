/** Calls to this same server, with the key the user pasted (kept in this browser only). */

const KEY_STORAGE = 'chainq.apiKey';

export const storedKey = (): string => localStorage.getItem(KEY_STORAGE) ?? '';
export const storeKey = (key: string): void => {
  if (key) localStorage.setItem(KEY_STORAGE, key);
  else localStorage.removeItem(KEY_STORAGE);
};

/** An error body of the API: its message, code and, when one field is at fault, that field. */
export interface ApiFailure {
  readonly status: number;
  readonly code: string;
  readonly message: string;
  readonly parameter?: string;
  readonly parameters?: readonly string[];
}

export class ApiCallError extends Error {
  constructor(readonly failure: ApiFailure) {
    super(failure.message);
  }
}

async function failureOf(res: Response): Promise<ApiFailure> {
  const text = await res.text();
  try {
    const body = JSON.parse(text) as { error?: string; code?: string; parameter?: string; parameters?: string[] };
    return {
      status: res.status,
      code: body.code ?? 'error',
      message: body.error ?? text,
      ...(body.parameter ? { parameter: body.parameter } : {}),
      ...(body.parameters ? { parameters: body.parameters } : {}),
    };
  } catch {
    return { status: res.status, code: 'error', message: text || res.statusText };
  }
}

export async function call(target: string, key: string, init: RequestInit = {}): Promise<Response> {
  const res = await fetch(target, { ...init, headers: { ...(init.headers ?? {}), 'x-api-key': key } });
  if (!res.ok) throw new ApiCallError(await failureOf(res));
  return res;
}

export async function getJson<T>(target: string, key: string): Promise<T> {
  return (await call(target, key)).json() as Promise<T>;
}

export interface CostEstimate {
  readonly query: string;
  readonly cost: number;
  readonly quota_remaining: number;
  readonly quota_remaining_after: number;
  readonly breakdown: { readonly formula: string; readonly [field: string]: unknown };
}

export async function estimate(target: string, key: string, signal?: AbortSignal): Promise<CostEstimate> {
  const res = await call('/v1/calculate-cost', key, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: target }),
    ...(signal ? { signal } : {}),
  });
  return res.json() as Promise<CostEstimate>;
}

export interface Usage {
  readonly plan: string;
  readonly requests_per_minute: number | null;
  readonly monthly_blocks: number | null;
  readonly month: string;
  readonly blocks_used: number;
  readonly blocks_left: number | null;
  readonly requests_charged: number;
  readonly resets_at: string;
  readonly last_charges: readonly { request_id: string; endpoint: string | null; cost: number; admitted_at: string; charged_at: string }[];
}

export interface CoverageEntry {
  readonly dataset: string;
  readonly network?: string;
  readonly token?: string;
  readonly unit: 'block' | 'ms';
  readonly ranges: readonly { from: number; to: number; time_from?: string | null; time_to?: string | null }[];
  readonly gaps: readonly { from: number; to: number }[];
  readonly newest: { readonly block?: number; readonly time: string | null };
  readonly confirmations: number | null;
  readonly last_advanced: string | null;
}
