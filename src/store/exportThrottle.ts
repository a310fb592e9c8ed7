/**
 * A file export that gives way (src/store/exportLanes.ts, ExportThrottle):
 * the engine's COPY streams into the process instead of writing the file
 * itself, and each piece is written only once the throttle gives a turn.
 * While a turn is awaited nothing is read, so the engine's write blocks and
 * its threads stop working on the export within about a row group.
 */
import { once } from 'node:events';
import fs from 'node:fs';
import { finished } from 'node:stream/promises';
import type { ExportThrottle } from './exportLanes.ts';
import type { CopyStream } from './types.ts';

/** Writes `copy`'s bytes to `file`, one turn per piece; answers the rows the engine wrote. */
export async function writeThrottled(copy: CopyStream, file: string, throttle: ExportThrottle): Promise<number> {
  const out = fs.createWriteStream(file);
  try {
    for await (const piece of copy.stream) {
      await throttle.turn();
      if (!out.write(piece)) await once(out, 'drain');
    }
    out.end();
    await finished(out);
    return await copy.done;
  } catch (e) {
    copy.cancel();
    out.destroy();
    await copy.done.catch(() => undefined);
    throw e;
  }
}
