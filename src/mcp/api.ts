/**
 * How the MCP tools reach the API: every tool call that touches data is one
 * ordinary HTTP request made with the caller's own key, so it is validated,
 * metered and charged exactly like that request.
 */

export interface ApiResponse {
  readonly status: number;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly text: string;
}

/** One request to the API with the caller's key: `path` includes the query string. */
export type ApiCall = (method: 'GET' | 'POST', path: string, body?: unknown) => Promise<ApiResponse>;

/** Over the network to a running server (the stdio transport). */
export function httpApi(baseUrl: string, apiKey: string): ApiCall {
  const base = baseUrl.replace(/\/+$/, '');
  return async (method, path, body) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { 'x-api-key': apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const headers: Record<string, string> = {};
    res.headers.forEach((v, k) => {
      headers[k] = v;
    });
    return { status: res.status, headers, text: await res.text() };
  };
}
