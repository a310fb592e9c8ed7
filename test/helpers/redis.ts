/** A real redis-server on a free port in a temporary directory, for the shared-limit tests. */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export interface RedisServer {
  readonly url: string;
  readonly port: number;
  stop(): Promise<void>;
}

export function redisAvailable(): boolean {
  return spawnSync('redis-server', ['--version']).status === 0;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export async function startRedis(): Promise<RedisServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-redis-'));
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    const proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', '--daemonize', 'no'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const ready = await new Promise<boolean>((resolve) => {
      proc.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('Ready to accept connections')) resolve(true);
      });
      proc.once('exit', () => resolve(false));
    });
    if (ready) {
      const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
      return {
        url: `redis://127.0.0.1:${port}`,
        port,
        async stop() {
          if (proc.exitCode === null) proc.kill('SIGTERM');
          await exited;
          fs.rmSync(dir, { recursive: true, force: true });
        },
      };
    }
    // The port was taken between probing and binding: try another.
    if (attempt >= 4) throw new Error(`redis-server did not start:\n${out}`);
  }
}
