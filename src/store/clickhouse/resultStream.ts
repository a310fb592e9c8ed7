/**
 * A data request's encoded result (`FORMAT …`), from ClickHouse to the
 * response body (docs/storage.md, "ClickHouse").
 *
 * A ClickHouse server streams its answer over HTTP in small chunks, which
 * pass on as they come. chDB's connection adapter hands the whole result
 * over as one buffer once the query is done; that buffer is written into
 * the body in slices straight from it (`writeInSlices`), without an async
 * generator and a pipeline per response between the engine and the body.
 */
import { PassThrough, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ClickHouseClient } from '@clickhouse/client';
import type { Format } from '../../catalog/types.ts';
import type { Semaphore } from '../../utils/semaphore.ts';
import type { CopyStream, SqlParams } from '../types.ts';
import { clickHouseExport } from './format.ts';

/** The most bytes handed on at once; see `writeInSlices`. */
export const SLICE_BYTES = 64 * 1024;

/**
 * Writes a result that arrived whole into `body` in slices of at most
 * SLICE_BYTES (views of the buffer, not copies), each after the body has
 * taken the one before. A single chunk of megabytes would pass every stream
 * buffer at once: the response would count as delivered (and be charged)
 * before the client had read it. In slices, the socket's backpressure holds
 * the body back as it does with a server's stream. The body ends after the
 * last slice; one destroyed meanwhile (a client gone) is written no more.
 */
export function writeInSlices(bytes: Buffer, body: Writable): void {
  let at = 0;
  const more = () => {
    while (at < bytes.length) {
      if (body.destroyed) return;
      const slice = bytes.subarray(at, at + SLICE_BYTES);
      at += slice.length;
      if (!body.write(slice)) {
        body.once('drain', more);
        return;
      }
    }
    body.end();
  };
  more();
}

/** A server's chunks, each cut to at most SLICE_BYTES (views, not copies). */
async function* slices(source: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  for await (const chunk of source) {
    for (let at = 0; at < chunk.length; at += SLICE_BYTES) yield chunk.subarray(at, at + SLICE_BYTES);
  }
}

/** The engine's bytes as one buffer (chDB's adapter yields a single chunk). */
async function wholeOf(source: AsyncIterable<Buffer>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of source) chunks.push(chunk);
  return chunks.length === 1 && chunks[0] ? chunks[0] : Buffer.concat(chunks);
}

const BODY_HIGH_WATER_MARK = 256 * 1024;

/**
 * Streams a query's encoded result, at most as many at once as `exports`
 * lets through. `whole`: the engine hands its result over whole (chDB).
 */
export function clickHouseCopier(client: ClickHouseClient, exports: Semaphore, whole: boolean): (sql: string, params: SqlParams, format: Format) => Promise<CopyStream> {
  return async function copyToStream(sql: string, params: SqlParams, format: Format): Promise<CopyStream> {
    const release = await exports.acquire();
    const abort = new AbortController();
    const out = clickHouseExport(format);
    const body = new PassThrough({ highWaterMark: BODY_HIGH_WATER_MARK });
    body.on('error', () => undefined);
    let released = false;
    const finish = () => {
      if (released) return;
      released = true;
      release();
    };
    body.on('close', finish);
    const done = (async () => {
      const result = await client.exec({
        query: `${sql} FORMAT ${out.format}`,
        query_params: params,
        clickhouse_settings: { ...out.settings },
        abort_signal: abort.signal,
      });
      const rows = Number(result.summary?.result_rows ?? 0);
      if (whole) writeInSlices(await wholeOf(result.stream), body);
      // The body ends only once the engine's stream has ended whole.
      else await pipeline(result.stream, slices, body);
      return rows;
    })();
    done.catch((e: unknown) => {
      body.destroy(e instanceof Error ? e : new Error(String(e)));
      finish();
    });
    return {
      stream: body,
      done,
      cancel() {
        abort.abort();
        body.destroy();
      },
    };
  };
}
