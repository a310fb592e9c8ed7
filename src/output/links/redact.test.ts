import { describe, expect, it } from 'vitest';
import { redactLinkIds } from './redact.ts';

const id = 'AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_abcde';

describe('redactLinkIds', () => {
  it('hides the id in link URLs, with or without a query, host or path prefix, valid or not', () => {
    expect(redactLinkIds(`/v1/links/${id}`)).toBe('/v1/links/[redacted]');
    expect(redactLinkIds(`/v1/links/${id}?x=1`)).toBe('/v1/links/[redacted]?x=1');
    expect(redactLinkIds(`https://data.example.com/api/v1/links/${id}#f`)).toBe('https://data.example.com/api/v1/links/[redacted]#f');
    expect(redactLinkIds('/v1/links/a-mistyped-id')).toBe('/v1/links/[redacted]');
  });

  it('hides a bare id in file names and object keys, including the temporary file', () => {
    expect(redactLinkIds(`open '/data/links/.tmp-${id}.csv'`)).toBe(`open '/data/links/.tmp-[redacted].csv'`);
    expect(redactLinkIds(`/data/links/${id}.json`)).toBe('/data/links/[redacted].json');
    expect(redactLinkIds(`s3://bucket/prefix/${id}.parquet`)).toBe('s3://bucket/prefix/[redacted].parquet');
  });

  it('leaves other long tokens alone: hashes, addresses', () => {
    const hash = `0x${'ab'.repeat(32)}`;
    expect(redactLinkIds(`tx ${hash} reverted`)).toBe(`tx ${hash} reverted`);
    expect(redactLinkIds(`to 0x${'c'.repeat(40)}`)).toBe(`to 0x${'c'.repeat(40)}`);
  });
});
