import { PassThrough, Readable, Transform } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { pipeInto } from './pipeInto.ts';

const identity = () => new Transform({ transform: (chunk, _enc, cb) => cb(null, chunk) });

describe('pipeInto', () => {
  it('passes every byte through and ends', async () => {
    const out = pipeInto(Readable.from([Buffer.from('a'), Buffer.from('b')]), identity());
    const got: Buffer[] = [];
    for await (const c of out) got.push(c as Buffer);
    expect(Buffer.concat(got).toString()).toBe('ab');
  });

  it('fails the stage with the body’s error', async () => {
    const body = new PassThrough();
    const out = pipeInto(body, identity());
    const failed = new Promise((resolve) => out.on('error', resolve));
    body.destroy(new Error('engine failed'));
    expect(((await failed) as Error).message).toBe('engine failed');
  });

  it('destroys the body when the stage closes early (the client left)', async () => {
    const body = new PassThrough();
    const out = pipeInto(body, identity());
    body.write('first');
    const closed = new Promise((resolve) => body.on('close', resolve));
    out.destroy();
    await closed;
    expect(body.destroyed).toBe(true);
  });
});
