/**
 * Waiting for an export job in server tests: its status read until it is no
 * longer queued or running, each read answered 200.
 */
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { ExportView } from '../../src/server/exports/view.ts';

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
