/**
 * /explore: the explorer page, static files built from web/ into dist/web
 * (`npm run build:web`; `npm install` and `npm start` build it when missing
 * or stale). The page reads the catalog from /openapi.json and calls /v1 with
 * the key the user pastes; its content security policy lets it load nothing
 * from anywhere but this server.
 */
import type { FastifyInstance } from 'fastify';
import fs from 'node:fs';
import path from 'node:path';
import { ApiError } from '../../errors/apiError.ts';
import { PACKAGE_ROOT } from '../../internal/packageRoot.ts';

export const WEB_DIR = path.join(PACKAGE_ROOT, 'dist', 'web');

const TYPES: Readonly<Record<string, string>> = {
  '.js': 'application/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

// uPlot and the table set style attributes; everything else comes from this origin.
const CSP = "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

/** Built asset names are plain (hashed) file names: nothing else is served from the folder. */
const ASSET_NAME = /^[A-Za-z0-9_.-]+$/;

export function registerExplore(app: FastifyInstance, webDir = WEB_DIR): void {
  const page = async (_req: unknown, reply: import('fastify').FastifyReply) => {
    const index = path.join(webDir, 'index.html');
    if (!fs.existsSync(index)) {
      throw new ApiError('unavailable', 'the explorer is not built: run `npm run build:web` (npm install and npm start build it when vite is installed)');
    }
    return reply.type('text/html; charset=utf-8').header('content-security-policy', CSP).header('cache-control', 'no-cache').send(fs.createReadStream(index));
  };
  app.get('/explore', page);
  app.get<{ Params: { file: string } }>('/explore/assets/:file', async (request, reply) => {
    const { file } = request.params;
    const type = TYPES[path.extname(file)];
    const full = path.join(webDir, 'assets', file);
    if (!ASSET_NAME.test(file) || file.startsWith('.') || !type || !fs.existsSync(full)) {
      throw new ApiError('not_found', `no explorer asset ${file}`);
    }
    // Names carry a content hash, so a file never changes under its name.
    return reply.type(type).header('cache-control', 'public, max-age=31536000, immutable').send(fs.createReadStream(full));
  });
}
