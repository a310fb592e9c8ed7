/**
 * Admits a /v1 request only with a valid `X-API-Key`. Lookups are cached for
 * a few seconds so that a hot key does not cost a store read per request.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../../errors/apiError.ts';
import { findKey, hashKey, type ApiKeyRecord } from '../../metering/keys.ts';
import type { Store } from '../../store/types.ts';

declare module 'fastify' {
  interface FastifyRequest {
    apiKey: ApiKeyRecord | null;
  }
}

const CACHE_MS = 5_000;

export function registerAuth(app: FastifyInstance, store: Store): void {
  const cache = new Map<string, { record: ApiKeyRecord | null; at: number }>();
  app.decorateRequest('apiKey', null);
  app.addHook('onRequest', async (request: FastifyRequest) => {
    const header = request.headers['x-api-key'];
    const key = Array.isArray(header) ? header[0] : header;
    if (!key) throw new ApiError('missing_api_key', 'send your API key in the X-API-Key header');
    const h = hashKey(key);
    const now = Date.now();
    let hit = cache.get(h);
    if (!hit || now - hit.at > CACHE_MS) {
      hit = { record: await findKey(store, key), at: now };
      if (cache.size > 10_000) cache.clear();
      cache.set(h, hit);
    }
    if (!hit.record) throw new ApiError('invalid_api_key', 'the API key is unknown or revoked');
    request.apiKey = hit.record;
  });
}
