/**
 * bin/chainq.js runs the production build (dist/server) only while it was
 * made from the sources now in src/, and src/ through tsx otherwise. Each test
 * works on a package of its own in a temporary folder (the real bin/chainq.js
 * and build script, this checkout's node_modules) whose src/cli/main.ts prints
 * the file it runs from.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/cli.ts';

const roots: string[] = [];
afterEach(() => {
  for (const d of roots.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

const MAIN = ["import { fileURLToPath } from 'node:url';", "import { greeting } from './greeting.ts';", 'process.stdout.write(greeting + " from " + fileURLToPath(import.meta.url) + "\\n");', ''].join(
  '\n',
);

function makePackage(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-build-'));
  roots.push(root);
  fs.mkdirSync(path.join(root, 'src', 'cli'), { recursive: true });
  fs.mkdirSync(path.join(root, 'bin'));
  fs.mkdirSync(path.join(root, 'scripts'));
  fs.writeFileSync(path.join(root, 'package.json'), JSON.stringify({ name: 'chainq-build-test', type: 'module' }));
  fs.writeFileSync(path.join(root, 'src', 'cli', 'main.ts'), MAIN);
  fs.writeFileSync(path.join(root, 'src', 'cli', 'greeting.ts'), "export const greeting: string = 'hello';\n");
  for (const f of ['bin/chainq.js', 'scripts/serverBuild.mjs', 'scripts/build-server.mjs']) fs.copyFileSync(path.join(REPO_ROOT, f), path.join(root, f));
  fs.symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(root, 'node_modules'));
  return root;
}

const build = (root: string) => execFileSync(process.execPath, [path.join(root, 'scripts', 'build-server.mjs')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

function runBin(root: string): string {
  const r = spawnSync(process.execPath, [path.join(root, 'bin', 'chainq.js')], { encoding: 'utf8' });
  expect(r.stderr).toBe('');
  return r.stdout.trim();
}

describe('bin/chainq.js and the server build', () => {
  it('runs the build when it was made from the current sources', () => {
    const root = makePackage();
    build(root);
    expect(runBin(root)).toBe(`hello from ${path.join(root, 'dist', 'server', 'main.js')}`);
  });

  it('runs src/ through tsx when there is no build', () => {
    const root = makePackage();
    expect(runBin(root)).toBe(`hello from ${path.join(root, 'src', 'cli', 'main.ts')}`);
  });

  it('runs src/ through tsx once a source file changed after the build, and the build again once rebuilt', () => {
    const root = makePackage();
    build(root);
    fs.writeFileSync(path.join(root, 'src', 'cli', 'greeting.ts'), "export const greeting: string = 'edited';\n");
    expect(runBin(root)).toBe(`edited from ${path.join(root, 'src', 'cli', 'main.ts')}`);
    build(root);
    expect(runBin(root)).toBe(`edited from ${path.join(root, 'dist', 'server', 'main.js')}`);
  });

  it('trusts the build on the sources’ sizes and times alone while they are unchanged, without reading them', () => {
    const root = makePackage();
    build(root);
    // A content hash that no longer matches is not looked at while no file's size or time changed.
    fs.writeFileSync(path.join(root, 'dist', 'server', '.source-hash'), 'not the hash');
    expect(runBin(root)).toBe(`hello from ${path.join(root, 'dist', 'server', 'main.js')}`);
  });

  it('runs the build when a source file was rewritten with the same bytes after it (its time changed, its hash did not)', () => {
    const root = makePackage();
    build(root);
    const file = path.join(root, 'src', 'cli', 'greeting.ts');
    const later = new Date(Date.now() + 5_000);
    fs.utimesSync(file, later, later);
    expect(runBin(root)).toBe(`hello from ${path.join(root, 'dist', 'server', 'main.js')}`);
    fs.writeFileSync(file, "export const greeting: string = 'bye';\n");
    fs.utimesSync(file, later, later);
    expect(runBin(root)).toBe(`bye from ${path.join(root, 'src', 'cli', 'main.ts')}`);
  });

  it('runs src/ through tsx once a source file is added after the build', () => {
    const root = makePackage();
    build(root);
    fs.writeFileSync(path.join(root, 'src', 'cli', 'extra.ts'), 'export const extra = 1;\n');
    expect(runBin(root)).toBe(`hello from ${path.join(root, 'src', 'cli', 'main.ts')}`);
  });

  it('leaves a fresh build alone and rebuilds a stale one (npm install, npm start)', () => {
    const root = makePackage();
    build(root);
    const main = path.join(root, 'dist', 'server', 'main.js');
    const builtAt = fs.statSync(main).mtimeMs;
    build(root);
    expect(fs.statSync(main).mtimeMs).toBe(builtAt);
    fs.writeFileSync(path.join(root, 'src', 'cli', 'greeting.ts'), "export const greeting: string = 'again';\n");
    build(root);
    expect(fs.readFileSync(main, 'utf8')).toContain('again');
  });
});
