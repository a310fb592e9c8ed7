/**
 * Creates named pipes for streamed exports without forking the server per
 * request. Node has no mkfifo(), and spawning `mkfifo` forks this process:
 * with DuckDB holding a large heap, each fork costs tens of milliseconds
 * (measured: ~60 ms at 1.5 GB RSS), more than a typical aggregate query. So
 * one small shell is started up front, while the process is still small, and
 * it runs `mkfifo` for each path written to its stdin.
 */
import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

export interface FifoMaker {
  /** Creates a fifo (mode 600) at `path`, a path chainq chose (never request text). */
  make(path: string): Promise<void>;
  close(): void;
}

export function createFifoMaker(): FifoMaker {
  let shell: ChildProcessWithoutNullStreams | null = null;
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
      if (!shell) {
        await execFileAsync('mkfifo', ['-m', '600', path]);
        return;
      }
      // Lines come back in the order paths were written.
      await new Promise<void>((resolve, reject) => {
        if (waiting.length === 0) (shell!.stdout as unknown as { ref(): void }).ref();
        waiting.push({ resolve, reject });
        shell!.stdin.write(`${path}\n`);
      }).catch(async () => {
        await execFileAsync('mkfifo', ['-m', '600', path]);
      });
    },
    close() {
      shell?.stdin.end();
      shell?.kill();
      shell = null;
    },
  };
}
