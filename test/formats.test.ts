/** The format table is what the encoder, link mode, range checks and OpenAPI say about formats. */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { encodeBody } from '../src/output/encode.ts';
import { checkRangeLimit } from '../src/query/range.ts';
import { dataRoutes } from '../src/catalog/derive/routes.ts';
import { openApiDocument } from '../src/catalog/derive/openapi.ts';
import { FORMAT_NAMES, FORMATS, rangeLimit } from '../src/catalog/formats.ts';

type Operation = { parameters: { name: string; description: string }[]; responses: { 200: { content: Record<string, unknown> } } };

describe('format table', () => {
  it('answers each format with its content type, as an attachment with its extension unless rows are inline', async () => {
    for (const f of FORMAT_NAMES) {
      const exp = { stream: Readable.from([Buffer.from(f === 'json' ? '' : 'x')]), done: Promise.resolve(0) };
      const { headers } = await encodeBody(exp, f, 'q');
      expect(headers['content-type'], f).toBe(FORMATS[f].contentType);
      expect(headers['content-disposition'], f).toBe(FORMATS[f].envelope ? undefined : `attachment; filename="q.${FORMATS[f].extension}"`);
    }
  });

  it("is what OpenAPI documents: each route answers its formats' media types, and takes link=true exactly when one of them can be a link", () => {
    const paths = openApiDocument().paths as Record<string, { get: Operation }>;
    for (const r of dataRoutes()) {
      const op = paths[r.path]!.get;
      const formats = FORMAT_NAMES.filter((f) => r.endpoint.formats.includes(f));
      expect(Object.keys(op.responses[200].content), r.path).toEqual(formats.map((f) => FORMATS[f].mediaType));
      const linkable = formats.filter((f) => FORMATS[f].link);
      const link = op.parameters.find((p) => p.name === 'link');
      expect(link !== undefined, r.path).toBe(linkable.length > 0);
      if (link) expect(link.description).toContain(`Needs ${linkable.map((f) => `format=${f}`).join(' or ')}.`);
    }
  });

  it("refuses a range over the format's limit and names the narrowest format that would take it", () => {
    const tooLarge = (f: (typeof FORMAT_NAMES)[number], blocks: number, network = 'ETH') => {
      try {
        checkRangeLimit({ kind: 'blocks', start: 0, end: blocks }, f, network);
        return null;
      } catch (e) {
        return (e as Error).message;
      }
    };
    expect(tooLarge('json', rangeLimit('json', 'ETH').blocks)).toBeNull();
    expect(tooLarge('json', 20_000)).toMatch(/limit of format=json on ETH; format=parquet allows up to 100,000 blocks$/);
    expect(tooLarge('csv', 500_000, 'ARB')).toMatch(/format=parquet allows up to 1,000,000 blocks$/);
    expect(tooLarge('parquet', 2_000_000, 'ARB')).toMatch(/no format allows a range this large/);
  });
});
