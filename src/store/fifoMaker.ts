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
  /** Creates a fifo (mode 600) at `path`, a path chainq chose (never request text). */
  make(path: string): Promise<void>;
  /** Stops making fifos; resolves once no `mkfifo` can still create one (so the folder can be removed). */
  close(): Promise<void>;
}

export function createFifoMaker(): FifoMaker {
  let shell: ChildProcessWithoutNullStreams | null = null;
  let closed = false;
  let exited: Promise<void> = Promise.resolve();
  const waiting: { resolve: () => void; reject: (e: Error) => void }[] = [];
  try {
    shell = spawn('sh', ['-c', 'while IFS= read -r p; do if mkfifo -m 600 "$p"; then echo ok; else echo err; fi; done'], { stdio: 'pipe' });
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
  return {
    async make(path) {
      if (path.includes('\n')) throw new Error('fifo path with a newline');
      if (closed) throw new Error('the fifo maker is closed');
      if (!shell) {
        await execFileAsync('mkfifo', ['-m', '600', path]);
        return;
      }
      // Lines come back in the order paths were written.
      await new Promise<void>((resolve, reject) => {
        if (waiting.length === 0) (shell!.stdout as unknown as { ref(): void }).ref();
        waiting.push({ resolve, reject });
        shell!.stdin.write(`${path}\n`);
      }).catch(async (e: Error) => {
        // A helper stopped by close() must not be replaced by a mkfifo racing the folder's removal.
        if (closed) throw e;
        await execFileAsync('mkfifo', ['-m', '600', path]);
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

/**
 * Fifos made ahead of the requests that use them: making one takes a fork and
 * exec of `mkfifo` in the helper (1–2 ms), which a small query would otherwise
 * wait for before its export can start. `ready` are kept made; each one taken
 * is replaced in the background.
 */
export function createFifoPool(maker: FifoMaker, dir: string, ready = 4): FifoPool {
  const made: string[] = [];
  let refilling = false;
  const newPath = () => path.join(dir, randomBytes(12).toString('hex'));
  const refill = async () => {
    if (refilling) return;
    refilling = true;
    try {
      while (made.length < ready) {
        const p = newPath();
        await maker.make(p);
        made.push(p);
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
      void refill();
      if (p) return p;
      const fresh = newPath();
      await maker.make(fresh);
      return fresh;
    },
  };
}
