/** The `chainq` command. One file per command beside this one. */
import { Command } from 'commander';
import { StoreLockedError } from '../store/createStore.ts';
import { registerDemo } from './demo.ts';
import { registerIngest } from './ingest.ts';
import { registerIngestSources } from './ingest-sources.ts';
import { registerKeys } from './keys.ts';
import { registerMcp } from './mcp.ts';
import { registerOperator } from './operator.ts';
import { registerReference } from './reference.ts';
import { registerServe } from './serve.ts';
import { registerStatus } from './status.ts';

const program = new Command('chainq').description('historical blockchain and exchange data, served over a metered HTTP API');
registerServe(program);
registerDemo(program);
registerIngest(program);
registerKeys(program);
registerStatus(program);
registerReference(program);
registerIngestSources(program);
registerMcp(program);
registerOperator(program);

try {
  await program.parseAsync(process.argv);
} catch (e) {
  const message = e instanceof StoreLockedError ? e.message : e instanceof Error ? e.message : String(e);
  process.stderr.write(`chainq: ${message}\n`);
  process.exitCode = 1;
}
