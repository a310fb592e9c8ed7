/**
 * The command table that lets `chainq <command>` load only that command's
 * module: each entry names exactly the top-level commands its module adds, so
 * no command goes missing when only its module is loaded.
 */
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { COMMANDS, commandsFor, registerCommands } from '../../src/cli/commands.ts';

describe('command table', () => {
  it('names, for each module, exactly the top-level commands it registers', async () => {
    for (const c of COMMANDS) {
      const program = new Command('chainq');
      (await c.load())(program);
      expect(program.commands.map((x) => x.name()).sort()).toEqual([...c.names].sort());
    }
  });

  it('loads only the modules of the command on the line', () => {
    expect(commandsFor(['node', 'chainq', 'serve', '--port', '0']).flatMap((c) => c.names)).toEqual(['serve']);
    // Two modules add subcommands to `ingest`.
    expect(commandsFor(['node', 'chainq', 'ingest', 'tron'])).toHaveLength(2);
  });

  it('registers every command for help or an unknown command', async () => {
    for (const argv of [
      ['node', 'chainq'],
      ['node', 'chainq', '--help'],
      ['node', 'chainq', 'serv'],
    ]) {
      const program = new Command('chainq');
      await registerCommands(program, argv);
      expect(program.commands.map((c) => c.name()).sort()).toEqual([...new Set(COMMANDS.flatMap((c) => c.names))].sort());
    }
  });
});
