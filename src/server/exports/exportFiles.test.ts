/**
 * A partition's file is hashed from the bytes that pass through the process
 * on their way to it, without reading it back, when they are all of the file;
 * a file the engine wrote itself (nothing passed through) is read back; a
 * gzipped file is hashed as the gzip writes it. Whichever way, the manifest's
 * sha256 is the finished file's.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { createExportFiles } from './exportFiles.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-export-files-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const BODY = Buffer.from('n,h\n'.concat(Array.from({ length: 5000 }, (_, i) => `${i},${i * 7}\n`).join('')));

describe('export files', () => {
  it('hashes the bytes that passed through the tap when they are the whole file, without reading it back', async () => {
    const files = await createExportFiles(dir);
    // The tap sees other bytes of the same length than the file holds: the digest is the tap's, so the file was not read.
    const seen = Buffer.alloc(BODY.length, 0x61);
    const written = await files.put('e1', 'part-1-2.csv', false, async (file, tap) => {
      fs.writeFileSync(file, BODY);
      tap?.(seen.subarray(0, 100));
      tap?.(seen.subarray(100));
      return 5000;
    });
    expect(written).toMatchObject({ rows: 5000, bytes: BODY.length, sha256: sha(seen) });
    expect(fs.readFileSync(path.join(dir, 'e1', 'part-1-2.csv'))).toEqual(BODY);
  });

  it('reads the file back when the bytes did not pass through the tap (the engine wrote the file itself), or only some did', async () => {
    const files = await createExportFiles(dir);
    const untapped = await files.put('e2', 'part-1-2.csv', false, async (file) => {
      fs.writeFileSync(file, BODY);
      return 5000;
    });
    expect(untapped.sha256).toBe(sha(BODY));
    const partly = await files.put('e2', 'part-3-4.csv', false, async (file, tap) => {
      fs.writeFileSync(file, BODY);
      tap?.(BODY.subarray(0, 10));
      return 5000;
    });
    expect(partly.sha256).toBe(sha(BODY));
  });

  it('hashes a gzipped file as written, the compressed bytes', async () => {
    const files = await createExportFiles(dir);
    const written = await files.put('e3', 'part-1-2.csv.gz', true, async (file, tap) => {
      // The tap is the compressed file's, not the engine's plain output.
      expect(tap).toBeUndefined();
      fs.writeFileSync(file, BODY);
      return 5000;
    });
    const onDisk = fs.readFileSync(path.join(dir, 'e3', 'part-1-2.csv.gz'));
    expect(gunzipSync(onDisk)).toEqual(BODY);
    expect(written).toMatchObject({ rows: 5000, bytes: onDisk.length, sha256: sha(onDisk) });
    expect(fs.readdirSync(path.join(dir, 'e3'))).toEqual(['part-1-2.csv.gz']);
  });
});
