/** `chainq plans reload` and `chainq jobs list|stop`: commands that only make sense with a running server. */
import type { Command } from 'commander';
import { OperatorError } from '../operator/actions.ts';
import { operate, runningServer } from './operate.ts';
import { DATA_HELP, DEFAULT_DATA_DIR, STORE_HELP } from './options.ts';

async function server(data: string) {
  const s = await runningServer(data);
  if (!s) throw new OperatorError(`no chainq server is running on ${data}`);
  return s;
}

export function registerOperator(program: Command): void {
  program
    .command('plans')
    .description('the plans in force on a running server')
    .command('reload')
    .description('reread the plans file (--plans, else <data>/plans.json) and apply it without a restart (SIGHUP does the same)')
    .option('--data <dir>', DATA_HELP, DEFAULT_DATA_DIR)
    .option('--store <target>', STORE_HELP)
    .action(async (opts: { data: string }) => {
      const { plans } = await operate(opts, 'plans.reload', {});
      process.stdout.write(`plans in force:\n${plans.map((p) => `  ${p}`).join('\n')}\n`);
    });

  const jobs = program.command('jobs').description('ingestion jobs of a running server');
  jobs
    .command('list')
    .description('every job: state, attempts, last error')
    .option('--data <dir>', DATA_HELP, DEFAULT_DATA_DIR)
    .option('--store <target>', STORE_HELP)
    .option('--json', 'print JSON')
    .action(async (opts: { data: string; json?: boolean }) => {
      const list = await (await server(opts.data)).jobs();
      if (opts.json) process.stdout.write(`${JSON.stringify(list)}\n`);
      else for (const j of list) process.stdout.write(`${j.id}  ${j.name ?? ''}  ${j.label}  ${j.state}  attempts ${j.attempts}${j.lastError ? `  last error: ${j.lastError.message}` : ''}\n`);
    });
  jobs
    .command('stop <id>')
    .description('stop a job at its next batch boundary (committed work is kept)')
    .option('--data <dir>', DATA_HELP, DEFAULT_DATA_DIR)
    .option('--store <target>', STORE_HELP)
    .action(async (id: string, opts: { data: string }) => {
      const status = await (await server(opts.data)).stopJob(id);
      process.stdout.write(`job ${status.id} (${status.label}) ${status.state}\n`);
    });
}
