/** Link payloads as files in the links folder (the embedded default). */
import fs from 'node:fs';
import path from 'node:path';
import type { LinkBackend } from './backend.ts';

export function createLocalBackend(dir: string): LinkBackend {
  const file = (key: string) => path.join(dir, key);
  return {
    name: 'local',
    async put(localFile, key) {
      // Same folder, so the rename is atomic: a link never points at a half-written file.
      await fs.promises.rename(localFile, file(key));
    },
    async get(key, range) {
      const stream = fs.createReadStream(file(key), range ? { start: range.start, end: range.end } : {});
      await new Promise<void>((resolve, reject) => {
        stream.once('open', () => resolve());
        stream.once('error', reject);
      });
      return stream;
    },
    async remove(key) {
      await fs.promises.rm(file(key), { force: true });
    },
  };
}
