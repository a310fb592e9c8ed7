import { PassThrough } from 'node:stream';
import { setImmediate as tick } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { SLICE_BYTES, writeInSlices } from '../../src/store/clickhouse/resultStream.ts';

const HIGH_WATER_MARK = 256 * 1024;

/** Bytes that differ from place to place, so that a slice out of order shows. */
function bytesOf(length: number): Buffer {
  const b = Buffer.alloc(length);
  for (let i = 0; i < length; i++) b[i] = (i * 31 + (i >> 16)) & 0xff;
  return b;
}

/** Every chunk as it comes out: flowing, as a response pipes it (paused reads would join them). */
function readAll(body: PassThrough): Promise<Buffer[]> {
  const chunks: Buffer[] = [];
  return new Promise((resolve, reject) => {
    body.on('data', (c: Buffer) => chunks.push(c));
    body.on('end', () => resolve(chunks));
    body.on('error', reject);
  });
}

describe("chDB's whole result written into a response body", () => {
  it('goes in slices of at most 64 KiB, every byte in order, and ends the body', async () => {
    const bytes = bytesOf(5 * SLICE_BYTES + 123);
    const body = new PassThrough({ highWaterMark: HIGH_WATER_MARK });
    const reading = readAll(body);
    writeInSlices(bytes, body);
    const chunks = await reading;
    expect(chunks.length).toBe(6);
    expect(Math.max(...chunks.map((c) => c.length))).toBe(SLICE_BYTES);
    expect(Buffer.concat(chunks).equals(bytes)).toBe(true);
  });

  it('holds back what is not read: no more than the body buffer and one slice leave the result', async () => {
    const body = new PassThrough({ highWaterMark: HIGH_WATER_MARK });
    writeInSlices(bytesOf(4 * 1024 * 1024), body);
    await tick();
    await tick();
    const held = body.readableLength + body.writableLength;
    expect(held).toBeGreaterThan(0);
    expect(held).toBeLessThanOrEqual(2 * HIGH_WATER_MARK + SLICE_BYTES);
    body.destroy();
  });

  it('writes nothing more into a body destroyed on the way (a client gone)', async () => {
    const body = new PassThrough({ highWaterMark: HIGH_WATER_MARK });
    let taken = 0;
    body.on('data', (c: Buffer) => {
      taken += c.length;
      if (taken >= SLICE_BYTES) body.destroy();
    });
    writeInSlices(bytesOf(4 * 1024 * 1024), body);
    await new Promise((r) => body.once('close', r));
    await tick();
    expect(taken).toBeLessThan(2 * HIGH_WATER_MARK);
  });

  it('ends the body with no bytes for an empty result', async () => {
    const body = new PassThrough({ highWaterMark: HIGH_WATER_MARK });
    const reading = readAll(body);
    writeInSlices(Buffer.alloc(0), body);
    expect(await reading).toEqual([]);
  });
});
