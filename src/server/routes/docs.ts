/** `/openapi.json` and `/docs`: the catalog's OpenAPI document and a browser view of it, served offline. */
import type { FastifyInstance } from 'fastify';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { openApiDocument } from '../../catalog/derive/openapi.ts';

const require = createRequire(import.meta.url);
const SWAGGER_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
};

const PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>chainq API</title>
<link rel="stylesheet" href="/docs/swagger-ui.css"></head>
<body><div id="ui"></div><script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script></body></html>`;

const INIT = `window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#ui' });`;

export function registerDocs(app: FastifyInstance): void {
  const doc = openApiDocument();
  app.get('/openapi.json', async () => doc);
  app.get('/docs', async (_req, reply) => reply.type('text/html; charset=utf-8').send(PAGE));
  app.get('/docs/init.js', async (_req, reply) => reply.type('application/javascript; charset=utf-8').send(INIT));
  for (const [file, type] of Object.entries(ASSETS)) {
    app.get(`/docs/${file}`, async (_req, reply) => reply.type(type).send(fs.createReadStream(path.join(SWAGGER_DIR, file))));
  }
}
