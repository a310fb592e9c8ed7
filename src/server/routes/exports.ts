/**
 * Export jobs (docs/api.md, "Exports"): POST /v1/exports prices a whole range
 * as one query and queues it; the job runs in the server
 * (src/server/exports/runner.ts); GET shows it, DELETE cancels it or deletes
 * its files; its manifest and files are downloaded with the key that made it.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { EXPORTS_PATH } from '../../catalog/exports.ts';
import { FORMATS } from '../../catalog/formats.ts';
import type { DataRoute } from '../../catalog/derive/routes.ts';
import { ApiError } from '../../errors/apiError.ts';
import type { PlanContext } from '../../query/planRaw.ts';
import { plannerFor } from '../../query/planner.ts';
import { parseRange } from '../../query/range.ts';
import type { StoredExport } from '../../store/types.ts';
import { asQueryValues, MAX_PARTITIONS, parseExportRequest, type ExportRequest } from '../exports/exportRequest.ts';
import { daysMs, partitionCount, type ExportRange } from '../exports/partitions.ts';
import type { ExportRunner, ResolvedExport } from '../exports/runner.ts';
import { exportView, manifestOf } from '../exports/view.ts';
import { releaseCost, reserveCost } from '../plugins/metering.ts';
import { customRouteAt } from './custom.ts';
import { sendDownload } from './links.ts';
import { validateQuery } from './queryValidator.ts';

export const DEFAULT_PARTITION_BLOCKS = 100_000;
export const DEFAULT_PARTITION_DAYS = 1;

/** Finds the data route of an export's endpoint and validates its parameters as that route validates a query string. */
export function exportResolver(server: FastifyInstance, ctx: PlanContext, routes: readonly DataRoute[]): (endpoint: string, params: Readonly<Record<string, unknown>>) => Promise<ResolvedExport> {
  const byPath = new Map(routes.map((r) => [r.path, r]));
  return async (endpoint, params) => {
    const route = byPath.get(endpoint) ?? (await customRouteAt(ctx.store, endpoint));
    if (!route) throw new ApiError('not_found', `no data endpoint at ${endpoint}; see /openapi.json`);
    const query = asQueryValues(params);
    validateQuery(server, route, query);
    return { route, query };
  };
}

/** The range the request's own parameters give (the planner has accepted them already). */
function rangeOf(query: Readonly<Record<string, unknown>>): ExportRange {
  const num = (v: unknown) => (typeof v === 'number' ? v : undefined);
  const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const r = parseRange({ block_start: num(query.block_start), block_end: num(query.block_end), since: text(query.since), until: text(query.until) });
  return r.kind === 'blocks' ? { kind: 'blocks', start: r.start, end: r.end } : { kind: 'time', start: r.since, end: r.until };
}

function partitionSizeOf(req: ExportRequest, range: ExportRange): number {
  if (range.kind === 'blocks') {
    if (req.partitionDays !== null)
      throw new ApiError('conflicting_parameters', 'partition_days splits a time range (since/until); this export has a block range: use partition_blocks', { parameters: ['partition_days'] });
    return req.partitionBlocks ?? DEFAULT_PARTITION_BLOCKS;
  }
  if (req.partitionBlocks !== null)
    throw new ApiError('conflicting_parameters', 'partition_blocks splits a block range; this export has a time range (since/until): use partition_days', { parameters: ['partition_blocks'] });
  return daysMs(req.partitionDays ?? DEFAULT_PARTITION_DAYS);
}

/** The price of the whole range as one query, and the blocks it spans (null for a time range of a venue). */
async function priceExport(ctx: PlanContext, keyId: string, route: DataRoute, query: Readonly<Record<string, unknown>>, req: ExportRequest): Promise<{ cost: number; blocks: number | null }> {
  const snap = await ctx.store.snapshot();
  try {
    // The whole range priced as one query, with the endpoint's own checks (coverage included) and errors.
    const plan = await plannerFor(route)({ ...ctx, store: snap, keyId, unlimitedRange: true }, route, { ...query, format: req.format, ...(req.maxCost === null ? {} : { max_cost: req.maxCost }) });
    return { cost: plan.cost.cost, blocks: plan.cost.breakdown.range_type === 'day' ? null : plan.cost.breakdown.block_range };
  } finally {
    await snap.close();
  }
}

/** Refuses an export with more partitions than any export may have, or more blocks than the caller's plan lets one cover. */
function checkExportSize(request: FastifyRequest, range: ExportRange, partitions: number, blocks: number | null): void {
  if (partitions > MAX_PARTITIONS) {
    throw new ApiError('invalid_parameter', `this export would have ${partitions} partitions, over the ${MAX_PARTITIONS} one export may have; use larger partitions`, {
      parameter: range.kind === 'blocks' ? 'partition_blocks' : 'partition_days',
    });
  }
  const plan = request.meter?.plan;
  const maxBlocks = plan?.exportMaxBlocks ?? null;
  if (maxBlocks !== null && blocks !== null && blocks > maxBlocks) {
    throw new ApiError('range_too_large', `this export spans ${blocks} blocks, over the ${maxBlocks} one export may cover on plan ${plan?.name}; split it into several exports`, {
      limit: maxBlocks,
      requested: blocks,
    });
  }
}

/** The record of a new job, before the runner has started it. */
function queuedExport(keyId: string, route: DataRoute, req: ExportRequest, range: ExportRange, size: number, partitions: number, cost: number): StoredExport {
  return {
    id: `exp_${randomBytes(12).toString('hex')}`,
    keyId,
    status: 'queued',
    endpoint: route.path,
    params: JSON.stringify(req.params),
    format: req.format,
    compression: req.compression,
    partitionBy: range.kind,
    rangeStart: range.start,
    rangeEnd: range.end,
    partitionSize: size,
    partitions,
    cost,
    columns: '',
    createdAt: new Date(),
    finishedAt: null,
    expiresAt: null,
    errorCode: null,
    errorMessage: null,
    filesRemoved: false,
  };
}

const CONTENT_TYPES = { parquet: FORMATS.parquet.contentType, csv: FORMATS.csv.contentType, gzip: 'application/gzip' } as const;

export function registerExports(v1: FastifyInstance, ctx: PlanContext, runner: ExportRunner, resolve: ReturnType<typeof exportResolver>): void {
  const keyOf = (request: FastifyRequest): string => {
    if (!request.apiKey) throw new ApiError('missing_api_key', 'an API key is required');
    return request.apiKey.id;
  };
  /** The caller's export: another key's is as absent as one that never was. */
  const owned = async (request: FastifyRequest, id: string): Promise<StoredExport> => {
    const job = runner.live(id)?.job ?? (await ctx.store.exports.get(id));
    if (!job || job.keyId !== keyOf(request)) throw new ApiError('not_found', `no export ${id} for this key`);
    return job;
  };
  const view = async (job: StoredExport) => {
    // A running export's partitions as its runner recorded them: polling it does not query the store.
    const parts = runner.live(job.id)?.parts ?? (await ctx.store.exports.parts(job.id));
    return exportView(job, parts, runner.etaSeconds(job, parts.length));
  };

  v1.post(EXPORTS_PATH, async (request, reply) => {
    const keyId = keyOf(request);
    // A server reading a store it may not write (several DuckDB servers sharing one with --redis) cannot record jobs.
    if (ctx.store.readOnly) throw new ApiError('unavailable', 'this server opens its store read-only and cannot run export jobs; send the export to a server that writes the store');
    const req = parseExportRequest(request.body);
    const { route, query } = await resolve(req.endpoint, req.params);
    const { cost, blocks } = await priceExport(ctx, keyId, route, query, req);
    const range = rangeOf(query);
    const size = partitionSizeOf(req, range);
    const partitions = partitionCount(range, size);
    checkExportSize(request, range, partitions, blocks);
    // The budget must cover the whole price now; each partition is charged its share when its file is complete.
    await reserveCost(request, reply, cost, EXPORTS_PATH);
    await releaseCost(request);
    const job = queuedExport(keyId, route, req, range, size, partitions, cost);
    await ctx.store.exports.save(job);
    runner.submit(job);
    return reply.code(202).send({ id: job.id, status: job.status, cost, partitions });
  });

  v1.get(EXPORTS_PATH, async (request) => {
    const jobs = await ctx.store.exports.list(keyOf(request));
    return { exports: await Promise.all(jobs.map(view)) };
  });

  v1.get<{ Params: { id: string } }>(`${EXPORTS_PATH}/:id`, async (request) => view(await owned(request, request.params.id)));

  v1.delete<{ Params: { id: string } }>(`${EXPORTS_PATH}/:id`, async (request) => {
    const job = await owned(request, request.params.id);
    if (job.status === 'queued' || job.status === 'running') return view(await runner.cancel(job));
    if (!job.filesRemoved) {
      const parts = await ctx.store.exports.parts(job.id);
      await runner.files.remove(
        job.id,
        parts.map((p) => p.name),
      );
      const removed: StoredExport = { ...job, filesRemoved: true, expiresAt: new Date() };
      await ctx.store.exports.save(removed);
      return view(removed);
    }
    return view(job);
  });

  v1.get<{ Params: { id: string } }>(`${EXPORTS_PATH}/:id/manifest.json`, async (request) => {
    const job = await owned(request, request.params.id);
    if (job.status === 'queued' || job.status === 'running') throw new ApiError('not_found', `export ${job.id} is ${job.status}: its manifest is written when it has finished`);
    return manifestOf(job, await ctx.store.exports.parts(job.id));
  });

  v1.get<{ Params: { id: string; name: string } }>(`${EXPORTS_PATH}/:id/files/:name`, async (request, reply) => {
    const job = await owned(request, request.params.id);
    const gone = () => new ApiError('not_found', `export ${job.id} has no file ${request.params.name}${job.filesRemoved ? ': its files expired or were deleted' : ''}`);
    if (job.filesRemoved) throw gone();
    const part = (await ctx.store.exports.parts(job.id)).find((p) => p.name === request.params.name);
    if (!part) throw gone();
    return sendDownload(
      request,
      reply,
      {
        filename: part.name,
        bytes: part.bytes,
        sha256: part.sha256,
        contentType: job.compression === 'gzip' ? CONTENT_TYPES.gzip : CONTENT_TYPES[job.format],
        read: (range) => runner.files.read(job.id, part.name, range),
      },
      gone,
    );
  });
}
