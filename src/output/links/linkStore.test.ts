import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLinkStore, type LinkStore } from './linkStore.ts';

describe('link store (local folder)', () => {
  let dir: string;
  let clock: number;
  let links: LinkStore;
  const write = (text: string) => async (file: string) => {
    fs.writeFileSync(file, text);
    return text.split('\n').length - 2;
  };
  const read = async (s: NodeJS.ReadableStream) => {
    let out = '';
    for await (const c of s) out += String(c);
    return out;
  };

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-links-test-'));
    clock = Date.UTC(2026, 0, 1);
    links = await createLinkStore({ dir, ttlSeconds: 600, tombstoneSeconds: 3600, now: () => clock });
  });
  afterEach(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('hands out a 256-bit id under the public URL, with the expiry, rows and bytes', async () => {
    const a = await links.create({ format: 'csv', basename: 'q', write: write('a,b\n1,2\n') }, 'http://h:1');
    const b = await links.create({ format: 'csv', basename: 'q', write: write('a,b\n1,2\n') }, 'http://h:1/');
    expect(a).toMatchObject({ status: 'success', expires_at: '2026-01-01T00:10:00.000Z', format: 'csv', rows: 1, bytes: 8 });
    expect(a.url).toMatch(/^http:\/\/h:1\/v1\/links\/[A-Za-z0-9_-]{43}$/);
    expect(b.url).not.toBe(a.url);
    const pub = await createLinkStore({ dir, publicUrl: 'https://data.example.com/', now: () => clock });
    expect((await pub.create({ format: 'parquet', basename: 'q', write: write('x\n') }, 'http://ignored')).url).toMatch(/^https:\/\/data\.example\.com\/v1\/links\//);
  });

  it('serves the file until it expires, then answers expired and deletes it', async () => {
    const link = await links.create({ format: 'csv', basename: 'trades', write: write('a\n1\n') }, 'http://h');
    const id = link.url.split('/').at(-1)!;
    const opened = await links.open(id);
    expect(opened.kind).toBe('ok');
    if (opened.kind === 'ok') {
      expect(await read(await opened.read())).toBe('a\n1\n');
      expect(await read(await opened.read({ start: 2, end: 3 }))).toBe('1\n');
      expect(opened.record.sha256).toBe(createHash('sha256').update('a\n1\n').digest('hex'));
      expect(opened.record.filename).toBe('trades.csv');
      expect(opened.contentType).toBe('text/csv; charset=utf-8');
    }
    clock += 600_000;
    expect((await links.open(id)).kind).toBe('expired');
    expect(fs.existsSync(path.join(dir, `${id}.csv`))).toBe(false);
    expect((await links.open(id)).kind).toBe('expired');
  });

  it('sweeps expired payloads, keeps tombstones for a while, then forgets them', async () => {
    const keep = await links.create({ format: 'csv', basename: 'k', write: write('a\n') }, 'http://h');
    clock += 300_000;
    const old = await links.create({ format: 'csv', basename: 'o', write: write('a\n') }, 'http://h');
    clock -= 300_000;
    const first = keep.url.split('/').at(-1)!;
    const second = old.url.split('/').at(-1)!;
    clock += 650_000; // the first expired, the second not
    expect(await links.sweep()).toEqual({ removed: 1, forgotten: 0 });
    expect(fs.existsSync(path.join(dir, `${first}.csv`))).toBe(false);
    expect(fs.existsSync(path.join(dir, `${second}.csv`))).toBe(true);
    expect((await links.open(first)).kind).toBe('expired');
    clock += 3_700_000;
    expect(await links.sweep()).toEqual({ removed: 1, forgotten: 1 });
    expect((await links.open(first)).kind).toBe('missing');
    expect((await links.open(second)).kind).toBe('expired');
  });

  it('answers missing for ids it never issued or that are malformed', async () => {
    expect((await links.open('A'.repeat(43))).kind).toBe('missing');
    expect((await links.open('../../etc/passwd')).kind).toBe('missing');
  });

  it('leaves nothing behind when the write fails', async () => {
    await expect(
      links.create(
        {
          format: 'csv',
          basename: 'x',
          write: async (f) => {
            fs.writeFileSync(f, 'half');
            throw new Error('engine failed');
          },
        },
        'http://h',
      ),
    ).rejects.toThrow('engine failed');
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});
