/** Streaming a JSON-RPC result array out of an answer, whatever the chunking and the envelope's spelling. */
import { describe, expect, it } from 'vitest';
import { createArrayExtractor } from './resultBytes.ts';

const LOGS = Array.from({ length: 40 }, (_, i) => ({ address: `0x${i.toString(16).padStart(40, '0')}`, topics: ['0xddf2', `0x${i}`], data: '0x', logIndex: `0x${i.toString(16)}` }));

/** Feeds `body` in chunks of `size` bytes; returns the extracted contents or the whole body. */
function extract(body: string, size: number) {
  const out: Buffer[] = [];
  const x = createArrayExtractor((b) => out.push(Buffer.from(b)));
  const bytes = Buffer.from(body);
  for (let i = 0; i < bytes.length; i += size) x.push(bytes.subarray(i, i + size));
  const end = x.end();
  return { end, contents: Buffer.concat(out).toString('utf8') };
}

describe('result array extraction', () => {
  const envelopes = {
    'result last': (r: string) => `{"jsonrpc":"2.0","id":7,"result":${r}}`,
    'result first': (r: string) => `{"result":${r},"jsonrpc":"2.0","id":7}`,
    'pretty printed': (r: string) => `{\n  "jsonrpc": "2.0",\n  "id": 7,\n  "result" :\n  ${r}\n}\n`,
  };
  for (const [name, wrap] of Object.entries(envelopes)) {
    for (const size of [1, 7, 300, 1 << 20]) {
      it(`${name}, in chunks of ${size} bytes: the array's contents, byte for byte`, () => {
        const array = JSON.stringify(LOGS, null, size === 7 ? 1 : undefined);
        const { end, contents } = extract(wrap(array), size);
        expect(end.kind).toBe('array');
        expect(JSON.parse(`[${contents}]`)).toEqual(LOGS);
        expect(end.kind === 'array' && end.bytes).toBe(Buffer.byteLength(contents));
      });
    }
  }

  it('an empty array gives no contents', () => {
    const { end, contents } = extract('{"jsonrpc":"2.0","id":1,"result":[]}', 5);
    expect(end).toEqual({ kind: 'array', bytes: 0 });
    expect(contents).toBe('');
  });

  it('an error answer, or a result that is not an array, comes back whole and nothing is streamed', () => {
    for (const body of [
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32005,"message":"query returned more than 10000 results, \\"result\\": [no]"}}',
      '{"jsonrpc":"2.0","id":1,"result":"0x10"}',
      '{"jsonrpc":"2.0","id":1,"result":null}',
    ]) {
      const { end, contents } = extract(body, 3);
      expect(end).toEqual({ kind: 'other', body: Buffer.from(body) });
      expect(contents).toBe('');
    }
  });

  it('a body that stops inside the array, or does not close the envelope, is refused', () => {
    const whole = `{"jsonrpc":"2.0","id":1,"result":${JSON.stringify(LOGS)}}`;
    expect(() => extract(whole.slice(0, 2000), 100)).toThrow(/does not end|not a JSON-RPC result/);
    expect(() => extract(whole.slice(0, -1), 100)).toThrow(/not a JSON-RPC result/);
  });
});
