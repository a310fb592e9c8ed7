import type { Command } from 'commander';

export function registerMcp(program: Command): void {
  program
    .command('mcp')
    .description('serve the MCP tools over stdio (for desktop agents) against a running chainq; every call is charged to --key')
    .option('--url <url>', 'base URL of the chainq API', process.env.CHAINQ_URL ?? 'http://127.0.0.1:8080')
    .option('--key <key>', 'your API key (or CHAINQ_API_KEY)', process.env.CHAINQ_API_KEY)
    .action(async (opts: { url: string; key?: string }) => {
      if (!opts.key) throw new Error('an API key is needed: --key cq_… or CHAINQ_API_KEY');
      // Loaded only here: the other commands do not need the MCP SDK.
      const { runStdioMcp } = await import('../mcp/stdio.ts');
      await runStdioMcp(opts.url, opts.key);
    });
}
