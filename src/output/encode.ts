/**
 * Turns an engine export into an HTTP body: content type, download name, and
 * the JSON envelope where needed. The first bytes are awaited before anything
 * is returned, so that a failure that happens early can still be answered as
 * a proper error rather than a cut-off stream.
 */
import type { Readable } from 'node:stream';
import { FORMATS } from '../catalog/formats.ts';
import type { Format } from '../catalog/types.ts';
import { pipeInto } from '../utils/pipeInto.ts';
import { envelopeOf, JsonEnvelope } from './jsonEnvelope.ts';

/** Content-Type by format, as the format table (catalog/formats.ts) has it. */
export const CONTENT_TYPES: Readonly<Record<Format, string>> = { json: FORMATS.json.contentType, csv: FORMATS.csv.contentType, parquet: FORMATS.parquet.contentType };

export interface EncodedBody {
  readonly body: Readable;
  readonly headers: Record<string, string>;
}

export interface EngineExport {
  readonly stream: Readable;
  readonly done: Promise<number>;
}

export async function encodeBody(exp: EngineExport, format: Format, basename: string): Promise<EncodedBody> {
  await firstBytes(exp);
  const body = FORMATS[format].envelope ? pipeInto(exp.stream, new JsonEnvelope(exp.stream.readableHighWaterMark)) : exp.stream;
  return { body, headers: bodyHeaders(format, basename) };
}

/** A result the engine handed back finished (src/store/duckdb/onePiece.ts), as one buffer: the same bytes encodeBody streams. */
export function encodeWhole(bytes: Buffer, format: Format, basename: string): { readonly body: Buffer; readonly headers: Record<string, string> } {
  return { body: FORMATS[format].envelope ? envelopeOf(bytes) : bytes, headers: bodyHeaders(format, basename) };
}

function bodyHeaders(format: Format, basename: string): Record<string, string> {
  const f = FORMATS[format];
  const headers: Record<string, string> = { 'content-type': f.contentType };
  // Rows in the JSON envelope are read inline; anything else is a file to save.
  if (!f.envelope) headers['content-disposition'] = `attachment; filename="${basename}.${f.extension}"`;
  return headers;
}

/** Resolves once the stream has data or has ended; rejects if the engine failed first. */
function firstBytes(exp: EngineExport): Promise<void> {
  return new Promise((resolve, reject) => {
    const s = exp.stream;
    const cleanup = () => {
      s.off('readable', onReady);
      s.off('end', onReady);
      s.off('error', onError);
    };
    const onReady = () => {
      cleanup();
      resolve();
    };
    const onError = (e: Error) => {
      cleanup();
      reject(e);
    };
    s.once('readable', onReady);
    s.once('end', onReady);
    s.once('error', onError);
    exp.done.catch((e: unknown) => {
      cleanup();
      reject(e instanceof Error ? e : new Error(String(e)));
    });
  });
}
