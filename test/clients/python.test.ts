/**
 * The Python client (clients/python) against a real `chainq serve` on a fresh
 * demo store: its pytest suite, run in a virtual environment made from the
 * package registry (clients/python/.venv, gitignored, made again when the
 * pinned versions change), with the server's URL and keys of four plans in
 * the environment; then mypy and ruff over the package. Beside the demo, the
 * store holds a custom dataset whose uint256/int256 values were emitted on
 * anvil and ingested by `chainq ingest evm --custom` while the server runs,
 * so that wide integers are checked digit for digit.
 *
 * Without Python 3.10+ and its venv module the file is skipped, loudly; with
 * CHAINQ_REQUIRE_PYTHON=1 (CI) it fails instead.
 */
import { spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { encodeAbiParameters, type Hex, pad, parseAbiItem, toEventSelector } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Anvil, startAnvil } from '../helpers/anvil.ts';
import { connectChain } from '../helpers/chain.ts';
import { REPO_ROOT, runCli } from '../helpers/cli.ts';
import { spawnListening, type ListeningProcess } from '../helpers/listening.ts';
import { startSseProxy, type SseProxy } from '../helpers/sseProxy.ts';

const PKG = path.join(REPO_ROOT, 'clients', 'python');
const VENV = path.join(PKG, '.venv');
const VENV_PY = path.join(VENV, 'bin', 'python');
const STAMP = path.join(VENV, '.chainq-installed');
const BIN = path.join(REPO_ROOT, 'bin', 'chainq.js');

/** The first Python 3.10+ on PATH that can make a virtual environment with pip. */
function findPython(): string | undefined {
  for (const exe of ['python3', 'python3.13', 'python3.12', 'python3.11', 'python3.10']) {
    const r = spawnSync(exe, ['-c', 'import sys, venv, ensurepip; sys.exit(0 if sys.version_info >= (3, 10) else 1)']);
    if (r.status === 0) return exe;
  }
  return undefined;
}

const python = findPython();
if (!python) {
  if (process.env.CHAINQ_REQUIRE_PYTHON === '1') throw new Error('Python 3.10+ with venv is required (CHAINQ_REQUIRE_PYTHON=1): apt-get install -y python3 python3-venv');
  process.stderr.write('\nPython 3.10+ with its venv module is not installed: skipping test/clients/python.test.ts (the Python client).\n\n');
}

function run(cmd: string, args: readonly string[], env: Record<string, string> = {}, cwd = PKG): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.once('close', (code) => resolve({ code, out }));
  });
}

async function must(cmd: string, args: readonly string[], env: Record<string, string> = {}): Promise<void> {
  const r = await run(cmd, args, env);
  if (r.code !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.code}:\n${r.out.slice(-4000)}`);
}

/** The venv with the pinned dependencies, made or brought up to date, and the package (as it is now) installed in it. */
async function prepareVenv(exe: string): Promise<void> {
  const wanted = crypto
    .createHash('sha256')
    .update(fs.readFileSync(path.join(PKG, 'constraints.txt')))
    .update(fs.readFileSync(path.join(PKG, 'pyproject.toml')))
    .digest('hex');
  if (!fs.existsSync(VENV_PY)) await must(exe, ['-m', 'venv', VENV]);
  if (!fs.existsSync(STAMP) || fs.readFileSync(STAMP, 'utf8') !== wanted) {
    await must(VENV_PY, ['-m', 'pip', 'install', '-q', '--disable-pip-version-check', '-c', 'constraints.txt', '.[test]']);
    fs.writeFileSync(STAMP, wanted);
  }
  // The package's code changes more often than its pins: install this checkout's every time.
  await must(VENV_PY, ['-m', 'pip', 'install', '-q', '--disable-pip-version-check', '--no-deps', '--no-build-isolation', '--force-reinstall', '.']);
}

const PLANS = {
  plans: {
    one_at_a_time: { requests_per_minute: null, monthly_blocks: null, concurrent_requests: 1 },
    two_per_minute: { requests_per_minute: 2, monthly_blocks: null },
    small_budget: { requests_per_minute: null, monthly_blocks: 500 },
  },
};

// The extremes of each width, emitted as logs of one event; pytest expects exactly these.
const BIG_EVENT = 'event Big(address indexed who, uint256 amount, int256 delta, uint64 small)';
const BIG_ROWS: readonly [Hex, bigint, bigint, bigint][] = [
  ['0x00000000000000000000000000000000000000aa', 2n ** 256n - 1n, -(2n ** 255n), 2n ** 64n - 1n],
  ['0x00000000000000000000000000000000000000bb', 2n ** 200n + 1n, 2n ** 255n - 1n, 0n],
];

/** Emits BIG_ROWS on a fresh anvil and ingests them as the custom dataset `big` into the served store; the last block. */
async function ingestWideIntegers(dir: string, data: string, anvil: Anvil): Promise<number> {
  const chain = await connectChain(anvil.url);
  const from = (await chain.blockNumber()) + 1;
  const emitter = await chain.deploy('LogEmitter');
  const event = parseAbiItem(BIG_EVENT);
  for (const [who, amount, delta, small] of BIG_ROWS) {
    const body = encodeAbiParameters([{ type: 'uint256' }, { type: 'int256' }, { type: 'uint64' }], [amount, delta, small]);
    await chain.send('LogEmitter', emitter, 'emitLog', [[toEventSelector(event), pad(who)], body]);
  }
  const to = await chain.blockNumber();
  const declaration = path.join(dir, 'big.json');
  fs.writeFileSync(declaration, JSON.stringify({ name: 'big', abi: [BIG_EVENT], networks: { ETH: { addresses: [emitter], from_block: from } } }));
  const r = await runCli(['ingest', 'evm', '--network', 'ETH', '--rpc', anvil.url, '--from', '0', '--to', String(to), '--confirmations', '0', '--data', data, '--custom', declaration]);
  if (r.code !== 0) throw new Error(`chainq ingest --custom failed:\n${r.stderr.slice(-3000)}`);
  return to;
}

/** In front of the server: passes every request through, but data answers (`/events/`) break off after their first 100 bytes. */
async function startCuttingProxy(target: string): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(async (req, res) => {
    const upstream = await fetch(target + (req.url ?? '/'), { headers: { 'x-api-key': String(req.headers['x-api-key'] ?? '') } });
    const body = Buffer.from(await upstream.arrayBuffer());
    res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/octet-stream', 'content-length': String(body.length) });
    if (req.url?.includes('/events/') && upstream.ok) res.write(body.subarray(0, 100), () => res.destroy());
    else res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe.skipIf(!python)('the Python client against chainq serve on demo data', () => {
  let dir: string;
  let server: ListeningProcess;
  let anvil: Anvil | undefined;
  let cutting: { url: string; close(): Promise<void> } | undefined;
  let sseProxy: SseProxy | undefined;
  let customEnd = 0;
  const keys: Record<string, string> = {};

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-python-'));
    const plans = path.join(dir, 'plans.json');
    fs.writeFileSync(plans, JSON.stringify(PLANS));
    const data = path.join(dir, 'data');
    const venv = prepareVenv(python ?? 'python3');
    server = await spawnListening('chainq serve', [BIN, 'serve', '--data', data, '--port', '0', '--plans', plans, '--log-level', 'warn'], { cwd: REPO_ROOT });
    await Promise.all(
      ['unlimited', ...Object.keys(PLANS.plans)].map(async (plan) => {
        const r = await runCli(['keys', 'create', '--data', data, '--plans', plans, '--plan', plan]);
        const key = r.stdout.trim().split('\n').at(-1) ?? '';
        if (r.code !== 0 || !key.startsWith('cq_')) throw new Error(`keys create --plan ${plan} failed:\n${r.stdout}${r.stderr}`);
        keys[plan] = key;
      }),
    );
    anvil = await startAnvil({ chainId: 1 });
    customEnd = await ingestWideIntegers(dir, data, anvil);
    cutting = await startCuttingProxy(server.url);
    sseProxy = await startSseProxy(server.url, { cutFreshStreams: 1 });
    await venv;
  }, 900_000);

  afterAll(async () => {
    await server?.stop();
    await anvil?.stop();
    await cutting?.close();
    await sseProxy?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('passes its pytest suite: every public method, split ranges, 429s, errors', async () => {
    const r = await run(VENV_PY, ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', 'tests'], {
      CHAINQ_URL: server.url,
      CHAINQ_API_KEY: keys.unlimited ?? '',
      CHAINQ_TEST_KEY_ONE_AT_A_TIME: keys.one_at_a_time ?? '',
      CHAINQ_TEST_KEY_TWO_PER_MINUTE: keys.two_per_minute ?? '',
      CHAINQ_TEST_KEY_SMALL_BUDGET: keys.small_budget ?? '',
      CHAINQ_TEST_CUSTOM_LAST_BLOCK: String(customEnd),
      CHAINQ_TEST_CUTTING_PROXY: cutting?.url ?? '',
      CHAINQ_TEST_SSE_PROXY: sseProxy?.url ?? '',
    });
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(/\d+ passed/);
    expect(r.out).not.toMatch(/skipped|error/);
  });

  it('is mypy-clean (strict) and ruff-clean, and its endpoint list matches the catalog', async () => {
    const mypy = await run(VENV_PY, ['-m', 'mypy']);
    expect(mypy.code, mypy.out).toBe(0);
    const ruff = await run(VENV_PY, ['-m', 'ruff', 'check', 'src', 'tests', 'scripts']);
    expect(ruff.code, ruff.out).toBe(0);
    const format = await run(VENV_PY, ['-m', 'ruff', 'format', '--check', 'src', 'tests', 'scripts']);
    expect(format.code, format.out).toBe(0);
    const endpoints = await run(VENV_PY, ['scripts/gen_endpoints.py', '--check']);
    expect(endpoints.code, endpoints.out).toBe(0);
  });
});
