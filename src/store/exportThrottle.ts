/**
 * A file export whose bytes pass through the process as a stream: an
 * engine's encoded answer (ClickHouse's) streams into it instead of the
 * engine writing the file itself. (DuckDB's COPY through a fifo has its own
 * path without a stream in between: src/store/duckdb/copy.ts.) Given a throttle
 * (src/store/exportLanes.ts, ExportThrottle), each piece is written only once
 * the throttle gives a turn; while a turn is awaited nothing is read, so the
 * engine's write blocks and its threads stop working on the export within
 * about a row group. Given a tap, each piece is handed to it on the way, so
 * that the caller can hash the file without reading it back.
 */
import { once } from 'node:events';
import fs from 'node:fs';
import { finished } from 'node:stream/promises';
import type { ExportThrottle } from './exportLanes.ts';
import type { CopyStream } from './types.ts';

/** Writes `copy`'s bytes to `file`, one turn per piece when throttled; answers the rows the engine wrote. */
export async function writeThrottled(copy: CopyStream, file: string, throttle: ExportThrottle | null, tap?: (piece: Uint8Array) => void): Promise<number> {
  const out = fs.createWriteStream(file);
  try {
    for await (const piece of copy.stream) {
      if (throttle) await throttle.turn();
      tap?.(piece);
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
