import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createFifoMaker } from './fifoMaker.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-fifo-test-'));
afterEach(() => {
  for (const f of fs.readdirSync(dir)) fs.rmSync(path.join(dir, f));
});

describe('createFifoMaker', () => {
  it('creates owner-only named pipes, many at once, in order', async () => {
    const maker = createFifoMaker();
    const paths = Array.from({ length: 20 }, (_, i) => path.join(dir, `p${i}`));
    await Promise.all(paths.map((p) => maker.make(p)));
    for (const p of paths) {
      const st = fs.statSync(p);
      expect(st.isFIFO()).toBe(true);
      expect(st.mode & 0o777).toBe(0o600);
    }
    maker.close();
  });

  it('reports a path it cannot create', async () => {
    const maker = createFifoMaker();
    await maker.make(path.join(dir, 'taken'));
    await expect(maker.make(path.join(dir, 'taken'))).rejects.toThrow();
    maker.close();
  });

  it('still creates pipes after the helper is gone', async () => {
    const maker = createFifoMaker();
    maker.close();
    await maker.make(path.join(dir, 'late'));
    expect(fs.statSync(path.join(dir, 'late')).isFIFO()).toBe(true);
  });
});
