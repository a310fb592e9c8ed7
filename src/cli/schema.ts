/** `chainq schema`: prints the ClickHouse DDL of a store, for operators who create tables themselves (docs/deployment.md). */
import type { Command } from 'commander';
import { clickHouseSchemaDdl } from '../store/openStore.ts';

interface SchemaOptions {
  database: string;
  cluster?: string;
}

export function registerSchema(program: Command): void {
  program
    .command('schema')
    .description("print the ClickHouse statements that create a store's tables (chainq creates them itself on first open when it may)")
    .option('--database <name>', 'the database', 'chainq')
    .option('--cluster <name>', "a cluster from the servers' remote_servers: ON CLUSTER, Replicated engines and Distributed dataset tables")
    .action((opts: SchemaOptions) => {
      for (const ddl of clickHouseSchemaDdl({ database: opts.database, cluster: opts.cluster ?? null })) {
        process.stdout.write(`${ddl.replace(/\n\s+/g, '\n  ')};\n\n`);
      }
    });
}
