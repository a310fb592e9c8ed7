import type { Command } from 'commander';

/**
 * The shared `chainq ingest` command group. Each source registers its own
 * subcommand on it (`ingest venue_a`, `ingest tron`, `ingest evm`…), so the
 * group is found by name, or created by whichever registers first.
 */
export function ingestGroup(program: Command): Command {
  return program.commands.find((c) => c.name() === 'ingest') ?? program.command('ingest').description('fill the store from a data source; resumable, never duplicates rows');
}
