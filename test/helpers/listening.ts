/** A child process that announces `listening on <url>` on stdout: started, and awaited until it listens. */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

export interface ListeningProcess {
  readonly url: string;
  readonly proc: ChildProcess;
  /** Everything it printed (stdout and stderr), for failure messages. */
  output(): string;
  /** SIGTERM (or `signal`) unless it already ended, then its exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** Spawns `process.execPath args`; rejects, with its output, if it exits before it listens. `what` names it in that error. */
export async function spawnListening(what: string, args: readonly string[], options: SpawnOptions = {}): Promise<ListeningProcess> {
  const proc = spawn(process.execPath, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
  });
  proc.stderr!.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const onData = () => {
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        proc.stdout!.off('data', onData);
        resolve(m[1]!);
      }
    };
    proc.stdout!.on('data', onData);
    void exited.then(() => reject(new Error(`${what} exited before listening:\n${out}`)));
  });
  return {
    url,
    proc,
    output: () => out,
    async stop(signal = 'SIGTERM') {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      await exited;
    },
  };
}
