/**
 * A store's process killed at a chosen moment: runs `body` in a child
 * process on a store in `dir` (`store`, and `c(id)`, a charge of key1 in
 * 2026-11, in scope), then kills it with SIGKILL. Its event loop is blocked
 * from the end of `body`, so no background apply runs before the kill.
 */
import { fork } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from './cli.ts';

/** How the child opens its store: an embedded DuckDB in `dir`, or chDB in `dir` (database `chainq`). */
const OPENINGS = {
  duckdb: { module: 'src/store/openStore.ts', open: (dir: string) => `m.createStore({ dataDir: ${JSON.stringify(dir)} })` },
  chdb: {
    module: 'src/store/clickhouse/createClickHouseStore.ts',
    open: (dir: string) => `m.createClickHouseStore({ target: { engine: 'chdb', dir: ${JSON.stringify(dir)} }, database: 'chainq' })`,
  },
} as const;

export async function killedAfter(engine: keyof typeof OPENINGS, dir: string, body: string): Promise<void> {
  const opening = OPENINGS[engine];
  const child = fork(
    '-e',
    [
      `
      const m = await import(${JSON.stringify(path.join(REPO_ROOT, opening.module))});
      const store = await ${opening.open(dir)};
      const c = (id) => ({ keyId: 'key1', period: '2026-11', requestId: id, cost: 100, admittedAt: Date.now(), endpoint: null });
      ${body}
      process.send('done', () => { for (;;) {} });
    `,
    ],
    { execArgv: ['--import', 'tsx', '--input-type=module'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
  );
  await new Promise<void>((resolve, reject) => {
    child.on('message', () => resolve());
    child.on('exit', (code) => reject(new Error(`child exited ${code}`)));
  });
  child.kill('SIGKILL');
  await new Promise((r) => child.on('exit', r));
}
