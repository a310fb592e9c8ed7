/**
 * chainq's MCP server (docs/mcp.md): the catalog's tools over any MCP
 * transport, each call made against the API with the caller's key. Built
 * on the SDK's low-level Server, so that tool input schemas are the
 * catalog's JSON Schemas as they are, with no second schema language.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { ApiCall } from './api.ts';
import { callTool } from './callTool.ts';
import { toolDefs } from './tools.ts';

export const MCP_SERVER_NAME = 'chainq';

export function createMcpServer(api: ApiCall, version = '0.1.0'): Server {
  const server = new Server(
    { name: MCP_SERVER_NAME, version },
    {
      capabilities: { tools: {} },
      instructions:
        'Historical blockchain and exchange data. Discover with list_datasets and describe_endpoint, price with estimate_cost, ' +
        'then run query_events or query_aggregate, or get_download_link for large results. Every query is charged in blocks like the HTTP request; params.max_cost caps a call.',
    },
  );
  const tools = toolDefs();
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    try {
      return { ...(await callTool(api, request.params.name, request.params.arguments ?? {})) };
    } catch (e) {
      // A network failure reaching the API, or an answer that is not what the API sends.
      return {
        content: [{ type: 'text', text: JSON.stringify({ error: `the chainq API could not be reached or answered unexpectedly: ${e instanceof Error ? e.message : String(e)}` }) }],
        isError: true,
      };
    }
  });
  return server;
}
