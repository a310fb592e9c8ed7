/**
 * A real anvil node for tests and benchmarks, from the `@foundry-rs/anvil`
 * npm package (its platform package ships the binary; nothing is downloaded).
 * Each call starts its own process on a free port; stop() ends it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';

const ARCH: Readonly<Record<string, string>> = { x64: 'amd64', arm64: 'arm64' };

export function anvilBinary(): string {
  const pkg = `@foundry-rs/anvil-${process.platform}-${ARCH[process.arch] ?? process.arch}`;
  const require = createRequire(import.meta.url);
  return path.join(path.dirname(require.resolve(`${pkg}/package.json`)), 'bin', process.platform === 'win32' ? 'anvil.exe' : 'anvil');
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface Anvil {
  readonly url: string;
  readonly port: number;
  readonly process: ChildProcess;
  /** A raw JSON-RPC call. */
  rpc<T = unknown>(method: string, params?: readonly unknown[]): Promise<T>;
  stop(): Promise<void>;
}

export interface AnvilOptions {
  /** Chain id the node reports: 1 lets it stand in for ETH, 10 for OP. */
  readonly chainId?: number;
  readonly args?: readonly string[];
}

export async function rpcCall<T>(url: string, method: string, params: readonly unknown[] = []): Promise<T> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = (await res.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

export async function startAnvil(opts: AnvilOptions = {}): Promise<Anvil> {
  const port = await freePort();
  const child = spawn(anvilBinary(), ['--port', String(port), '--host', '127.0.0.1', '--chain-id', String(opts.chainId ?? 1), '--silent', ...(opts.args ?? [])], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const url = `http://127.0.0.1:${port}`;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  for (let i = 0; ; i++) {
    try {
      await rpcCall(url, 'eth_chainId');
      break;
    } catch (e) {
      if (child.exitCode !== null || i > 200) throw new Error(`anvil did not start: ${stderr || (e as Error).message}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }
  return {
    url,
    port,
    process: child,
    rpc: (method, params = []) => rpcCall(url, method, params),
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
