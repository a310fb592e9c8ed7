/**
 * Export jobs in server tests: one started (answered 202), and its status read
 * until it is no longer queued or running, each read answered 200.
 */
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { ExportView } from '../../src/server/exports/view.ts';

/** The 202 answer's body of `POST /v1/exports` with `body`, as `key`. */
export async function acceptedExport(app: FastifyInstance, key: string, body: unknown): Promise<{ id: string; status: string; cost: number; partitions: number }> {
  const posted = await app.inject({ method: 'POST', url: '/v1/exports', headers: { 'x-api-key': key, 'content-type': 'application/json' }, payload: JSON.stringify(body) });
  expect(posted.statusCode, posted.body).toBe(202);
  return posted.json();
}

/** Reads `GET /v1/exports/{id}` through `read` every `pollMs` until the export has ended; its last status. */
export async function settledExport(read: (url: string) => Promise<LightMyRequestResponse>, id: string, pollMs = 50): Promise<ExportView> {
  for (;;) {
    const r = await read(`/v1/exports/${id}`);
    expect(r.statusCode, r.body).toBe(200);
    const v: ExportView = r.json();
    if (v.status !== 'queued' && v.status !== 'running') return v;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
