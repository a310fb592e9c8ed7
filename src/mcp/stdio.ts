/** `chainq mcp`: the MCP server over stdio, for desktop agents, against a running chainq. */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { httpApi } from './api.ts';
import { createMcpServer } from './createMcpServer.ts';

export async function runStdioMcp(url: string, apiKey: string): Promise<void> {
  const server = createMcpServer(httpApi(url, apiKey));
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
  });
  await server.connect(new StdioServerTransport());
  process.stdin.once('end', () => {
    void server.close();
  });
  // Runs until the client closes stdin.
  await closed;
}
