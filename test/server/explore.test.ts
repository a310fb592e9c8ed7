/**
 * /explore serves the built page and its hashed assets only, with a content
 * security policy that keeps the page on this server, and says how to build
 * it when it is missing.
 */
import Fastify from 'fastify';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sendError, toApiError } from '../../src/server/errorHandler.ts';
import { registerExplore } from '../../src/server/routes/explore.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-web-'));
fs.mkdirSync(path.join(dir, 'assets'));
fs.writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>x</title>');
fs.writeFileSync(path.join(dir, 'assets', 'index-abc123.js'), 'console.log(1)');
fs.writeFileSync(path.join(dir, 'secret.txt'), 'not served');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function appOver(webDir: string) {
  const app = Fastify();
  app.setErrorHandler((err, request, reply) => sendError(toApiError(err, request), reply));
  registerExplore(app, webDir);
  await app.ready();
  return app;
}

describe('/explore', () => {
  it('serves the page with a policy that loads nothing from elsewhere', async () => {
    const app = await appOver(dir);
    const r = await app.inject('/explore');
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(r.headers['content-security-policy']).toContain("default-src 'self'");
    expect(r.headers['content-security-policy']).toContain("connect-src 'self'");
    const js = await app.inject('/explore/assets/index-abc123.js');
    expect(js.statusCode).toBe(200);
    expect(js.headers['content-type']).toBe('application/javascript; charset=utf-8');
    expect(js.headers['cache-control']).toContain('immutable');
    await app.close();
  });

  it('serves nothing outside the assets folder, nor unknown kinds of file', async () => {
    const app = await appOver(dir);
    for (const url of ['/explore/assets/..%2Fsecret.txt', '/explore/assets/%2E%2E%2Findex.html', '/explore/assets/missing.js', '/explore/assets/secret.txt', '/explore/secret.txt']) {
      const r = await app.inject(url);
      expect(r.statusCode, url).toBe(404);
      expect(r.body, url).not.toContain('not served');
    }
    await app.close();
  });

  it('answers 503 with the build command when the page is not built', async () => {
    const app = await appOver(path.join(dir, 'nowhere'));
    const r = await app.inject('/explore');
    expect(r.statusCode).toBe(503);
    expect(JSON.parse(r.body)).toMatchObject({ code: 'unavailable', error: expect.stringContaining('npm run build:web') });
    await app.close();
  });
});
