/** Regenerates docs/endpoints.md and docs/openapi.json from the catalog. */
import fs from 'node:fs';
import { endpointReference } from '../src/catalog/derive/reference.ts';
import { openApiDocument } from '../src/catalog/derive/openapi.ts';

fs.writeFileSync(new URL('../docs/endpoints.md', import.meta.url), endpointReference());
fs.writeFileSync(new URL('../docs/openapi.json', import.meta.url), `${JSON.stringify(openApiDocument(), null, 2)}\n`);
console.log('wrote docs/endpoints.md and docs/openapi.json');
