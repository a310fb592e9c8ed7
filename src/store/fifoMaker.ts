/**
 * Creates named pipes for streamed exports without forking the server per
 * request. Node has no mkfifo(), and spawning `mkfifo` forks this process:
 * with DuckDB holding a large heap, each fork costs tens of milliseconds
 * (measured: ~60 ms at 1.5 GB RSS), more than a typical aggregate query. So
 * one small shell is started up front, while the process is still small, and
 * it runs `mkfifo` for each path written to its stdin.
 */
import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

export interface FifoMaker {
  /**
   * Creates fifos (mode 600) with these names in the maker's folder, in one
   * exec of `mkfifo`. The names are chainq's own (lowercase hex), never request text.
   */
  make(names: readonly string[]): Promise<void>;
  /** Stops making fifos; resolves once no `mkfifo` can still create one (so the folder can be removed). */
  close(): Promise<void>;
}

const NAME = /^[0-9a-f]+$/;

export function createFifoMaker(dir: string): FifoMaker {
  let shell: ChildProcessWithoutNullStreams | null = null;
  let closed = false;
  let exited: Promise<void> = Promise.resolve();
  const waiting: { resolve: () => void; reject: (e: Error) => void }[] = [];
  try {
    // The names of a line are split into mkfifo's arguments by the shell: hex names need no quoting.
    shell = spawn('sh', ['-c', 'cd "$1" || exit 1; while IFS= read -r names; do if mkfifo -m 600 $names; then echo ok; else echo err; fi; done', 'chainq-fifo', dir], { stdio: 'pipe' });
    // Without the helper (no sh, or it died), waiting requests fall back to spawning mkfifo.
    const gone = () => {
      shell = null;
      for (const w of waiting.splice(0)) w.reject(new Error('the fifo helper exited'));
    };
    shell.on('error', gone);
    shell.on('exit', gone);
    const started = shell;
    exited = new Promise<void>((resolve) => {
      started.on('exit', () => resolve());
      started.on('error', () => resolve());
    });
    shell.stdin.on('error', () => undefined);
    // The helper must not keep the process alive on its own: referenced only while a request waits.
    shell.unref();
    (shell.stdout as unknown as { unref(): void }).unref();
    (shell.stdin as unknown as { unref(): void }).unref();
    createInterface({ input: shell.stdout }).on('line', (line) => {
      const w = waiting.shift();
      if (!w) return;
      if (waiting.length === 0) (shell?.stdout as unknown as { unref(): void } | undefined)?.unref();
      if (line === 'ok') w.resolve();
      else w.reject(new Error('mkfifo failed'));
    });
  } catch {
    shell = null;
  }
  const spawnMkfifo = (names: readonly string[]) => execFileAsync('mkfifo', ['-m', '600', ...names.map((n) => path.join(dir, n))]);
  return {
    async make(names) {
      if (names.length === 0) return;
      if (!names.every((n) => NAME.test(n))) throw new Error('fifo names are lowercase hex');
      if (closed) throw new Error('the fifo maker is closed');
      if (!shell) {
        await spawnMkfifo(names);
        return;
      }
      // Lines come back in the order they were written.
      await new Promise<void>((resolve, reject) => {
        if (waiting.length === 0) (shell!.stdout as unknown as { ref(): void }).ref();
        waiting.push({ resolve, reject });
        shell!.stdin.write(`${names.join(' ')}\n`);
      }).catch(async (e: Error) => {
        // A helper stopped by close() must not be replaced by a mkfifo racing the folder's removal.
        if (closed || e.message === 'mkfifo failed') throw e;
        await spawnMkfifo(names);
      });
    },
    async close() {
      closed = true;
      const running = shell;
      shell = null;
      if (!running) return;
      // End of input lets the shell finish the mkfifo it may be running, then exit; a kill could
      // leave that mkfifo to create its fifo while the caller removes the folder.
      running.stdin.end();
      const timer = setTimeout(() => running.kill('SIGKILL'), 2000);
      await exited;
      clearTimeout(timer);
    },
  };
}

export interface FifoPool {
  /** A new fifo in the pool's folder, made ahead of time when one is ready (each is handed out once). */
  take(): Promise<string>;
}

export interface FifoPoolOptions {
  /** Fifos kept made. */
  readonly ready?: number;
  /** Made per exec of `mkfifo`, once that many have been taken. */
  readonly batch?: number;
}

/**
 * Fifos made ahead of the requests that use them. Making one takes a fork
 * and exec of `mkfifo` in the helper, whose CPU time a running query shares
 * on a small machine: measured on 2 cores, a small export made 1.5–2 ms
 * slower when one was made beside it. So they are made in batches, one exec
 * for `batch` fifos, and a request only waits for one when the pool is empty.
 */
export function createFifoPool(maker: FifoMaker, dir: string, opts: FifoPoolOptions = {}): FifoPool {
  const ready = opts.ready ?? 32;
  const batch = Math.min(opts.batch ?? 16, ready);
  const made: string[] = [];
  let refilling = false;
  const newName = () => randomBytes(12).toString('hex');
  const refill = async () => {
    if (refilling) return;
    refilling = true;
    try {
      while (made.length < ready) {
        const names = Array.from({ length: ready - made.length }, newName);
        await maker.make(names);
        made.push(...names.map((n) => path.join(dir, n)));
      }
    } catch {
      // The next take() makes its own and reports the failure to its request.
    } finally {
      refilling = false;
    }
  };
  void refill();
  return {
    async take() {
      const p = made.shift();
      if (made.length <= ready - batch) void refill();
      if (p) return p;
      const fresh = newName();
      await maker.make([fresh]);
      return path.join(dir, fresh);
    },
  };
}
