/**
 * MCP over Streamable HTTP at `/mcp` (docs/mcp.md), on the API listener.
 * Stateless: each POST carries its JSON-RPC message and is answered with
 * JSON. The caller's API key (`X-API-Key`, or `Authorization: Bearer`) is
 * checked here, and every tool call is an in-process request to the API
 * with that key, so it is validated, metered and charged exactly like the
 * same HTTP request.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../../errors/apiError.ts';
import type { ApiCall } from '../../mcp/api.ts';
import { findKey } from '../../metering/keys.ts';
import type { Store } from '../../store/types.ts';

export const MCP_PATH = '/mcp';

function keyOf(request: FastifyRequest): string | undefined {
  const header = request.headers['x-api-key'];
  const key = Array.isArray(header) ? header[0] : header;
  if (key) return key;
  const auth = request.headers.authorization;
  const m = auth ? /^Bearer\s+(\S+)$/i.exec(auth) : null;
  return m?.[1];
}

/** The API, reached in-process with the caller's key, under the Host the caller used (so download links point where it can reach). */
function injectApi(app: FastifyInstance, apiKey: string, host: string | undefined): ApiCall {
  return async (method, path, body) => {
    const r = await app.inject({
      method,
      url: path,
      headers: { 'x-api-key': apiKey, ...(host ? { host } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(r.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : String(v);
    return { status: r.statusCode, headers, text: r.body };
  };
}

/**
 * The MCP SDK and the tool definitions, loaded at the first MCP message: they
 * weigh some 30 MiB of resident memory that a server nobody reaches over MCP
 * would carry for nothing.
 */
let mcpModules: Promise<[typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js'), typeof import('../../mcp/createMcpServer.ts')]> | null = null;
function loadMcp() {
  if (!mcpModules) {
    mcpModules = Promise.all([import('@modelcontextprotocol/sdk/server/streamableHttp.js'), import('../../mcp/createMcpServer.ts')]);
    // A failed load is not kept: the next message tries again.
    mcpModules.catch(() => {
      mcpModules = null;
    });
  }
  return mcpModules;
}

export function registerMcpRoute(app: FastifyInstance, store: Store): void {
  app.post(MCP_PATH, async (request, reply) => {
    const key = keyOf(request);
    if (!key) throw new ApiError('missing_api_key', 'send your API key in the X-API-Key header, or as Authorization: Bearer <key>');
    if (!(await findKey(store, key))) throw new ApiError('invalid_api_key', 'the API key is unknown or revoked');
    const [{ StreamableHTTPServerTransport }, { createMcpServer }] = await loadMcp();
    const server = createMcpServer(injectApi(app, key, request.headers.host));
    // No session id generator: stateless, a fresh server and transport per message.
    const transport = new StreamableHTTPServerTransport({ enableJsonResponse: true });
    reply.hijack();
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request.raw, reply.raw, request.body);
  });
  // Stateless: no server-initiated stream to open, no session to end.
  for (const method of ['GET', 'DELETE'] as const) {
    app.route({
      method,
      url: MCP_PATH,
      handler: async (_request, reply) => {
        reply.header('allow', 'POST');
        throw new ApiError('method_not_allowed', `${method} is not allowed on ${MCP_PATH}: this MCP endpoint is stateless, send each JSON-RPC message as a POST`);
      },
    });
  }
}
