/**
 * Compiles the Solidity fixtures beside this file with the `solc` npm package
 * (solc-js, no native compiler needed) into artifacts.json: ABI and creation
 * bytecode per contract. Run `npx tsx test/contracts/compile.ts` after editing
 * a .sol file; contracts.test.ts fails while artifacts.json is stale.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = path.dirname(fileURLToPath(import.meta.url));
export const ARTIFACTS_FILE = path.join(dir, 'artifacts.json');

export interface Artifact {
  readonly abi: readonly unknown[];
  readonly bytecode: `0x${string}`;
}

export function compileFixtures(): Record<string, Artifact> {
  const solc = createRequire(import.meta.url)('solc') as { compile(input: string): string };
  const sources = Object.fromEntries(
    fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.sol'))
      .sort()
      .map((f) => [f, { content: fs.readFileSync(path.join(dir, f), 'utf8') }]),
  );
  const input = {
    language: 'Solidity',
    sources,
    settings: {
      optimizer: { enabled: true, runs: 200 },
      evmVersion: 'cancun',
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
    },
  };
  const out = JSON.parse(solc.compile(JSON.stringify(input))) as {
    errors?: { severity: string; formattedMessage: string }[];
    contracts: Record<string, Record<string, { abi: unknown[]; evm: { bytecode: { object: string } } }>>;
  };
  const errors = (out.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  const artifacts: Record<string, Artifact> = {};
  for (const file of Object.keys(out.contracts).sort()) {
    for (const [name, c] of Object.entries(out.contracts[file]!).sort(([a], [b]) => a.localeCompare(b))) {
      artifacts[name] = { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` };
    }
  }
  return artifacts;
}

export function loadArtifacts(): Record<string, Artifact> {
  return JSON.parse(fs.readFileSync(ARTIFACTS_FILE, 'utf8')) as Record<string, Artifact>;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  fs.writeFileSync(ARTIFACTS_FILE, `${JSON.stringify(compileFixtures(), null, 1)}\n`);
  process.stdout.write(`wrote ${ARTIFACTS_FILE}\n`);
}
