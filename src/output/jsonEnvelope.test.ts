import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { envelopeOf, JsonEnvelope } from './jsonEnvelope.ts';

async function wrap(chunks: string[]): Promise<string> {
  const out: Buffer[] = [];
  for await (const c of Readable.from(chunks.map((s) => Buffer.from(s))).pipe(new JsonEnvelope())) out.push(c as Buffer);
  return Buffer.concat(out).toString();
}

describe('JsonEnvelope', () => {
  it('wraps newline-delimited rows into the success envelope with their count', async () => {
    expect(JSON.parse(await wrap(['{"a":1}\n{"a":2}\n']))).toEqual({ status: 'success', events: [{ a: 1 }, { a: 2 }], count: 2 });
  });

  it('handles rows and newlines split across chunk boundaries', async () => {
    const rows = `${Array.from({ length: 50 }, (_, i) => JSON.stringify({ i, s: 'x'.repeat(i) })).join('\n')}\n`;
    for (const size of [1, 2, 7, 64]) {
      const chunks = rows.match(new RegExp(`[\\s\\S]{1,${size}}`, 'g'))!;
      const body = JSON.parse(await wrap(chunks)) as { events: { i: number }[]; count: number };
      expect(body.count).toBe(50);
      expect(body.events.map((e) => e.i)).toEqual([...Array(50).keys()]);
    }
  });

  it('answers an empty result as an empty list', async () => {
    expect(JSON.parse(await wrap([]))).toEqual({ status: 'success', events: [], count: 0 });
  });

  it('builds the same bytes at once around rows that are all there, and leaves them untouched', async () => {
    for (const rows of ['', '{"a":1}\n', '{"a":1}\n{"a":"x\\ny"}\n{"a":3}\n']) {
      const input = Buffer.from(rows);
      expect(envelopeOf(input).toString(), rows).toBe(await wrap([rows]));
      expect(input.toString()).toBe(rows);
    }
  });
});
