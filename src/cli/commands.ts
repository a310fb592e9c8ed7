/**
 * Every top-level command and the module that registers it, loaded only when
 * that command runs: a server then never loads ingestion's ABI decoders and
 * viem, nor an ingest run the HTTP server (tens of MiB each, held for the
 * process's life). Help without a command registers them all, in this order.
 */
import type { Command } from 'commander';

type Register = (program: Command) => void;

export interface CommandModule {
  /** The top-level commands the module adds. */
  readonly names: readonly string[];
  readonly load: () => Promise<Register>;
}

export const COMMANDS: readonly CommandModule[] = [
  { names: ['serve'], load: async () => (await import('./serve.ts')).registerServe },
  { names: ['demo'], load: async () => (await import('./demo.ts')).registerDemo },
  { names: ['ingest'], load: async () => (await import('./ingest.ts')).registerIngest },
  { names: ['keys'], load: async () => (await import('./keys.ts')).registerKeys },
  { names: ['compact', 'status'], load: async () => (await import('./status.ts')).registerStatus },
  { names: ['tokens', 'labels'], load: async () => (await import('./reference.ts')).registerReference },
  { names: ['ingest'], load: async () => (await import('./ingest-sources.ts')).registerIngestSources },
  { names: ['mcp'], load: async () => (await import('./mcp.ts')).registerMcp },
  { names: ['plans', 'jobs'], load: async () => (await import('./operator.ts')).registerOperator },
  { names: ['copy'], load: async () => (await import('./copy.ts')).registerCopy },
  { names: ['schema'], load: async () => (await import('./schema.ts')).registerSchema },
  { names: ['verify'], load: async () => (await import('./verify.ts')).registerVerify },
];

/** The modules a command line needs: those of its command, or all of them when it names none (help, a typo). */
export function commandsFor(argv: readonly string[]): readonly CommandModule[] {
  const name = argv[2];
  const named = COMMANDS.filter((c) => name !== undefined && c.names.includes(name));
  return named.length > 0 ? named : COMMANDS;
}

export async function registerCommands(program: Command, argv: readonly string[]): Promise<void> {
  for (const c of commandsFor(argv)) (await c.load())(program);
}
