/** The generated references match the catalog, and the API reference documents exactly the error codes that exist. */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from '../src/catalog/derive/openapi.ts';
import { endpointReference } from '../src/catalog/derive/reference.ts';
import { API_ERRORS } from '../src/errors/apiError.ts';

const read = (p: string) => fs.readFileSync(new URL(`../${p}`, import.meta.url), 'utf8');

describe('docs', () => {
  it('docs/endpoints.md is what the catalog generates (run `npm run docs`)', () => {
    expect(read('docs/endpoints.md')).toBe(endpointReference());
  });

  it('docs/openapi.json is what the catalog generates (run `npm run docs`)', () => {
    expect(JSON.parse(read('docs/openapi.json'))).toEqual(JSON.parse(JSON.stringify(openApiDocument())));
  });

  it('the API reference lists every error code and no other', () => {
    const api = read('docs/api.md');
    const table = api.slice(api.indexOf('## Errors'));
    const documented = new Set([...table.matchAll(/^\| \d{3} \| `([a-z_]+)` \|/gm)].map((m) => m[1]));
    expect(documented).toEqual(new Set(Object.keys(API_ERRORS)));
  });
});
