/**
 * A real `chainq serve` process on a data directory, with an unlimited key
 * made by `chainq keys create` first, queried over HTTP on a real port.
 */
import type { ChildProcess } from 'node:child_process';
import { generateDemo, type DemoOptions } from '../../src/demo/generate.ts';
import { loadSeed } from '../../src/reference/importReference.ts';
import { createStore } from '../../src/store/openStore.ts';
import { runCli, spawnCli, type RunningCli } from './cli.ts';

export interface Server {
  readonly url: string;
  readonly key: string;
  readonly child: ChildProcess;
  /** The `chainq serve` process as the CLI helper sees it: its JSON log lines, its exit. */
  readonly cli: RunningCli;
  /** What `chainq serve` printed on stdout up to now. */
  stdout(): string;
  get(pathAndQuery: string): Promise<{ status: number; body: Record<string, unknown> }>;
  stop(): Promise<void>;
}

/** Writes a store with the synthetic demo into `dataDir` (in this process, then closed), for a server to open. */
export async function writeDemoStore(dataDir: string, demo: DemoOptions): Promise<void> {
  const store = await createStore({ dataDir, threads: 2 });
  try {
    await loadSeed(store);
    await generateDemo(store, demo);
  } finally {
    await store.close();
  }
}

export async function startServer(dataDir: string, extraArgs: readonly string[] = [], key?: string): Promise<Server> {
  if (key === undefined) {
    const created = await runCli(['keys', 'create', '--plan', 'unlimited', '--data', dataDir]);
    if (created.code !== 0) throw new Error(`keys create failed: ${created.stderr}`);
    key = created.stdout.trim().split('\n').pop()!.trim();
  }
  const apiKey = key;
  const cli = spawnCli(['serve', '--data', dataDir, '--port', '0', '--no-demo', '--log-level', 'warn', ...extraArgs]);
  const child: ChildProcess = cli.child;
  let out = '';
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const url = await new Promise<string>((resolve, reject) => {
    const onData = () => {
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        child.stdout!.off('data', onData);
        resolve(m[1]!);
      }
    };
    child.stdout!.on('data', onData);
    void cli.done.then((r) => reject(new Error(`chainq serve exited (${r.code}): ${r.stderr}`)));
  });
  return {
    url,
    key: apiKey,
    child,
    cli,
    stdout: () => out,
    async get(pathAndQuery) {
      const res = await fetch(`${url}${pathAndQuery}`, { headers: { 'x-api-key': apiKey } });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    },
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await cli.done;
    },
  };
}
