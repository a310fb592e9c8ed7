/**
 * A protocol is named in its own folder and in the registry only: code
 * elsewhere in src/ reaches a protocol through the registry (or imports a
 * constant from its folder), never by spelling its name, so that adding or
 * renaming one touches nothing else.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { chainEndpoints } from '../../src/catalog/index.ts';
import { protocolRegistry } from '../../src/protocols/index.ts';

const SRC = path.resolve(import.meta.dirname, '../../src');

/** Written by `npm run generate` from the catalog (which takes the names from the registry). */
const GENERATED = ['client/routes.generated.ts'];

function files(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? files(p) : p.endsWith('.ts') && !p.endsWith('.test.ts') ? [p] : [];
  });
}

/** String literals of the code (their text: without a template's substitutions), leaving out comments and import specifiers. */
function strings(file: string): string[] {
  const code = fs
    .readFileSync(file, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1')
    .replace(/^\s*(?:import|export)\s[^'"]*?from\s+['"][^'"]+['"]/gm, '')
    .replace(/\bimport\(\s*['"][^'"]+['"]\s*\)/g, '');
  // A template's substitutions are code, not text.
  return [...code.matchAll(/'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`/g)].map((m) => m[0].replace(/\$\{[^}]*\}/g, '…'));
}

/**
 * How a protocol's name shows in a string: alone or as a word of it, or, for
 * a name other families use too (`native` is also Tron's and Bitcoin's), as
 * an EVM dataset id, path or table name.
 */
function spelling(name: string): RegExp {
  const otherFamilies = new Set(chainEndpoints.filter((e) => e.family !== 'evm').map((e) => e.protocol));
  // Table names join the words with underscores: evm_dex_v3_swap.
  return otherFamilies.has(name) ? new RegExp(`\\bevm[/_]${name}($|[^a-z0-9])`) : new RegExp(`(^|[^a-z0-9_]|evm_)${name}($|[^a-z0-9])`);
}

const rel = (file: string) => path.relative(SRC, file).split(path.sep).join('/');
const ownFolder = (file: string, name: string) => rel(file).startsWith(`protocols/${name}/`) || rel(file) === 'protocols/index.ts';

function spelled(file: string): string[] {
  return protocolRegistry.names.flatMap((name) => {
    if (ownFolder(file, name)) return [];
    const re = spelling(name);
    return strings(file)
      .filter((s) => re.test(s))
      .map((s) => `${rel(file)}: ${name} in ${s.length > 80 ? `${s.slice(0, 77)}…` : s}`);
  });
}

describe('protocol names', () => {
  const all = files(SRC).filter((f) => !GENERATED.includes(rel(f)));

  it('appear in strings only in their own folder and the registry', () => {
    expect(all.flatMap(spelled)).toEqual([]);
  });

  it('are found by the check where they are spelled', () => {
    // The check itself: a name spelled out of its folder is caught, qualified or not.
    const probe = path.join(SRC, 'protocols', 'index.ts');
    expect(spelling('dex_v3').test('evm/dex_v3/swap')).toBe(true);
    expect(spelling('dex_v3').test('no dex_v3 factory')).toBe(true);
    expect(spelling('native').test('tron/native/transfer')).toBe(false);
    expect(spelling('native').test('evm_native_transfer')).toBe(true);
    expect(spelling('dex_v3').test('evm_dex_v3_swap')).toBe(true);
    expect(spelling('erc20').test('trc20')).toBe(false);
    expect(ownFolder(probe, 'dex_v3')).toBe(true);
  });
});
