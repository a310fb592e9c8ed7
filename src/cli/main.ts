/** The `chainq` command. One file per command beside this one. */
import { Command } from 'commander';
import { registerDemo } from './demo.ts';
import { registerIngest } from './ingest.ts';
import { registerIngestSources } from './ingest-sources.ts';
import { registerKeys } from './keys.ts';
import { registerCopy } from './copy.ts';
import { registerMcp } from './mcp.ts';
import { normalizeStoreOption, type DataOption } from './options.ts';
import { registerOperator } from './operator.ts';
import { registerReference } from './reference.ts';
import { registerSchema } from './schema.ts';
import { registerServe } from './serve.ts';
import { registerStatus } from './status.ts';
import { registerVerify } from './verify.ts';

const program = new Command('chainq').description('historical blockchain and exchange data, served over a metered HTTP API');
program.hook('preAction', (_program, command) => {
  normalizeStoreOption(command.opts<DataOption>(), (name, value) => command.setOptionValue(name, value));
});
registerServe(program);
registerDemo(program);
registerIngest(program);
registerKeys(program);
registerStatus(program);
registerReference(program);
registerIngestSources(program);
registerMcp(program);
registerOperator(program);
registerCopy(program);
registerSchema(program);
registerVerify(program);

try {
  await program.parseAsync(process.argv);
} catch (e) {
  const message = e instanceof Error ? e.message : String(e);
  process.stderr.write(`chainq: ${message}\n`);
  // A command that failed ends here, whatever it had opened: a server that failed to start
  // would otherwise stay alive on its store and helpers, and never listen.
  process.exit(1);
}
