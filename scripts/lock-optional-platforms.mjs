#!/usr/bin/env node
// The npm mirror this project is built against lacks some platform-specific
// optional packages (e.g. @duckdb/node-bindings-darwin-arm64). `npm install`
// then leaves them out of package-lock.json, and `npm ci` refuses the lock as
// out of sync. This adds a lock entry for each missing optional dependency,
// carrying the os/cpu constraints taken from its name, so that `npm ci`
// skips it on platforms it does not match. Run it after `npm install`.
import fs from 'node:fs';

const lockPath = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(fs.readFileSync(lockPath, 'utf8'));
const packages = lock.packages;
const OS = ['darwin', 'linux', 'win32', 'freebsd', 'android', 'openbsd', 'sunos', 'aix'];
const CPU = ['arm64', 'x64', 'ia32', 'arm', 'riscv64', 'ppc64', 's390x', 'loong64'];
let added = 0;
for (const [where, pkg] of Object.entries(packages)) {
  for (const [name, version] of Object.entries(pkg.optionalDependencies ?? {})) {
    const key = `node_modules/${name}`;
    const nested = `${where ? `${where}/` : ''}node_modules/${name}`;
    if (packages[key] || packages[nested]) continue;
    const parts = name.split('/').pop().split('-');
    const os = parts.find((p) => OS.includes(p));
    const cpu = parts.find((p) => CPU.includes(p));
    if (!os || !cpu) continue;
    const entry = { version, optional: true, os: [os], cpu: [cpu] };
    if (parts.includes('musl')) entry.libc = ['musl'];
    else if (os === 'linux' && parts.includes('gnu')) entry.libc = ['glibc'];
    packages[key] = entry;
    added++;
  }
}
lock.packages = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
fs.writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`added ${added} optional platform entries`);
