/** The `chainq` command. One file per command beside this one, loaded when that command runs (commands.ts). */
import { Command } from 'commander';
import { registerCommands } from './commands.ts';
import { normalizeStoreOption, type DataOption } from './options.ts';

const program = new Command('chainq').description('historical blockchain and exchange data, served over a metered HTTP API');
program.hook('preAction', (_program, command) => {
  normalizeStoreOption(command.opts<DataOption>(), (name, value) => command.setOptionValue(name, value));
});
await registerCommands(program, process.argv);

try {
  await program.parseAsync(process.argv);
} catch (e) {
  const message = e instanceof Error ? e.message : String(e);
  process.stderr.write(`chainq: ${message}\n`);
  // A command that failed ends here, whatever it had opened: a server that failed to start
  // would otherwise stay alive on its store and helpers, and never listen.
  process.exit(1);
}
