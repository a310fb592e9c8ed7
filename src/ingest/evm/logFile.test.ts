/** A batch's log file: pages joined into one JSON array, failed attempts cut off, nothing left when no page held a log. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { createLogDir, openLogFile } from './logFile.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'logfile-test-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const log = (i: number) => ({ logIndex: `0x${i.toString(16)}` });
const contents = (logs: unknown[]) => Buffer.from(JSON.stringify(logs).slice(1, -1));

describe('log file', () => {
  it('joins pages, empty and whitespace-only ones included, into one array; an aborted attempt leaves no trace', () => {
    const file = path.join(dir, 'a.json');
    const w = openLogFile(file);
    w.page().write(contents([log(0), log(1)]));
    w.page().write(Buffer.from('  \n'));
    const failed = w.page();
    failed.write(contents([log(2)]).subarray(0, 5));
    failed.abort();
    const retried = w.page();
    const body = contents([log(2), log(3)]);
    retried.write(body.subarray(0, 4));
    retried.write(body.subarray(4));
    w.page();
    expect(w.close()).toBe(true);
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual([log(0), log(1), log(2), log(3)]);
  });

  it('an aborted first page leaves the file as if it never started', () => {
    const file = path.join(dir, 'b.json');
    const w = openLogFile(file);
    const p = w.page();
    p.write(contents([log(9)]));
    p.abort();
    w.page().write(contents([log(1)]));
    expect(w.close()).toBe(true);
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual([log(1)]);
  });

  it('with no log in any page, close says so and removes the file; discard removes it too', () => {
    const empty = openLogFile(path.join(dir, 'c.json'));
    empty.page().write(Buffer.from(' '));
    expect(empty.close()).toBe(false);
    expect(fs.existsSync(path.join(dir, 'c.json'))).toBe(false);
    const dropped = openLogFile(path.join(dir, 'd.json'));
    dropped.page().write(contents([log(1)]));
    dropped.discard();
    expect(fs.existsSync(path.join(dir, 'd.json'))).toBe(false);
  });

  it('a new run removes the log folders of runs whose process is gone, and keeps those of live ones', () => {
    const base = fs.mkdtempSync(path.join(dir, 'base-'));
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    fs.mkdirSync(path.join(base, `chainq-logs-${dead}-abc123`));
    fs.writeFileSync(path.join(base, `chainq-logs-${dead}-abc123`, '1-20-1.json'), '[]');
    fs.mkdirSync(path.join(base, `chainq-logs-${process.pid}-live01`));
    fs.mkdirSync(path.join(base, 'someone-else'));
    const mine = createLogDir(base);
    expect(path.basename(mine)).toMatch(new RegExp(`^chainq-logs-${process.pid}-`));
    expect(fs.readdirSync(base).sort()).toEqual([path.basename(mine), `chainq-logs-${process.pid}-live01`, 'someone-else'].sort());
  });
});
