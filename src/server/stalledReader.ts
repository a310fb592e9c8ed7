/**
 * A client that stops reading a streamed answer would hold its export (and
 * its lane's slot, README "Performance") for as long as it keeps the
 * connection open: the engine waits for the pipe to drain. Once bytes wait
 * for the client and none have moved on to it for `idleMs`, the answer is
 * given up: the export is cancelled, the connection closed, and nothing is
 * charged (the answer did not complete).
 */
import type { FastifyReply } from 'fastify';

declare module 'fastify' {
  interface FastifyInstance {
    /** How long a streamed answer may wait on a client that does not read; 0 never gives up. */
    stalledReaderMs: number;
  }
}

export const DEFAULT_STALLED_READER_MS = 60_000;

/** Calls `onStall` once the response has waited on its client for `idleMs` with no byte handed on; stops watching when it closes. */
export function watchStalledReader(reply: FastifyReply, idleMs: number, onStall: () => void): void {
  if (!(idleMs > 0)) return;
  const res = reply.raw;
  let waitingSince: number | null = null;
  let written = -1;
  const timer = setInterval(
    () => {
      const socket = res.socket;
      if (!socket) return;
      // Bytes handed to the kernel move on as the client reads; an engine still working leaves nothing waiting.
      const moved = socket.bytesWritten !== written;
      written = socket.bytesWritten;
      const waiting = res.writableNeedDrain || socket.writableLength > 0;
      if (moved || !waiting) {
        waitingSince = null;
        return;
      }
      waitingSince ??= Date.now();
      if (Date.now() - waitingSince >= idleMs) {
        clearInterval(timer);
        onStall();
      }
    },
    Math.max(50, Math.min(1_000, idleMs / 4)),
  );
  timer.unref();
  res.once('close', () => clearInterval(timer));
}
