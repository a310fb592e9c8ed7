/**
 * Link-mode configuration for `chainq serve`, from flags and the environment:
 *
 * - CHAINQ_LINK_TTL (seconds, default 3600), or --link-ttl
 * - CHAINQ_PUBLIC_URL: base of the URLs handed out, or --public-url; default: the request's own scheme and host
 * - CHAINQ_LINK_DIR: folder of link records and local payloads; default <data>/links
 * - CHAINQ_LINK_S3_BUCKET turns on the S3-compatible backend, with CHAINQ_LINK_S3_ENDPOINT,
 *   CHAINQ_LINK_S3_REGION, CHAINQ_LINK_S3_PREFIX and CHAINQ_LINK_S3_FORCE_PATH_STYLE (true/false);
 *   credentials come from the usual AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (or profiles and roles).
 */
import path from 'node:path';
import type { LinkOptions } from '../output/links/linkStore.ts';
import type { ExportOptions } from '../server/createApp.ts';
import type { S3LinkOptions } from '../output/links/s3Backend.ts';

export interface LinkFlags {
  readonly data: string;
  readonly linkTtl?: number;
  readonly publicUrl?: string;
}

export function linkOptions(flags: LinkFlags, env: NodeJS.ProcessEnv = process.env): LinkOptions {
  const ttl = flags.linkTtl ?? (env.CHAINQ_LINK_TTL ? Number(env.CHAINQ_LINK_TTL) : 3600);
  if (!Number.isFinite(ttl) || ttl <= 0) throw new Error(`CHAINQ_LINK_TTL must be a positive number of seconds, got '${env.CHAINQ_LINK_TTL}'`);
  const publicUrl = flags.publicUrl ?? env.CHAINQ_PUBLIC_URL;
  const bucket = env.CHAINQ_LINK_S3_BUCKET;
  const s3: S3LinkOptions | undefined = bucket
    ? {
        bucket,
        ...(env.CHAINQ_LINK_S3_ENDPOINT ? { endpoint: env.CHAINQ_LINK_S3_ENDPOINT } : {}),
        ...(env.CHAINQ_LINK_S3_REGION ? { region: env.CHAINQ_LINK_S3_REGION } : {}),
        ...(env.CHAINQ_LINK_S3_PREFIX !== undefined ? { prefix: env.CHAINQ_LINK_S3_PREFIX } : {}),
        ...(env.CHAINQ_LINK_S3_FORCE_PATH_STYLE ? { forcePathStyle: env.CHAINQ_LINK_S3_FORCE_PATH_STYLE === 'true' } : {}),
      }
    : undefined;
  return {
    dir: env.CHAINQ_LINK_DIR ?? path.join(path.resolve(flags.data), 'links'),
    ttlSeconds: ttl,
    ...(publicUrl ? { publicUrl } : {}),
    ...(s3 ? { s3 } : {}),
  };
}

export interface ExportFlags {
  readonly data: string;
  readonly exportJobs: number;
  readonly exportTtl: number;
  readonly exportDir?: string;
  /** false with --no-export-yield. */
  readonly exportYield?: boolean;
}

/**
 * Export jobs' configuration: --export-jobs, --export-ttl, --export-dir, --no-export-yield
 * (default <data>/exports). CHAINQ_EXPORT_S3_BUCKET delivers the files to a
 * bucket instead, with the endpoint, region and path style of the link
 * bucket's variables (CHAINQ_LINK_S3_ENDPOINT, …) and the same credentials.
 */
export function exportOptions(flags: ExportFlags, env: NodeJS.ProcessEnv = process.env): ExportOptions {
  const bucket = env.CHAINQ_EXPORT_S3_BUCKET;
  const s3: S3LinkOptions | undefined = bucket
    ? {
        bucket,
        ...(env.CHAINQ_LINK_S3_ENDPOINT ? { endpoint: env.CHAINQ_LINK_S3_ENDPOINT } : {}),
        ...(env.CHAINQ_LINK_S3_REGION ? { region: env.CHAINQ_LINK_S3_REGION } : {}),
        ...(env.CHAINQ_LINK_S3_FORCE_PATH_STYLE ? { forcePathStyle: env.CHAINQ_LINK_S3_FORCE_PATH_STYLE === 'true' } : {}),
      }
    : undefined;
  return {
    dir: flags.exportDir ? path.resolve(flags.exportDir) : path.join(path.resolve(flags.data), 'exports'),
    jobs: flags.exportJobs,
    ttlSeconds: flags.exportTtl,
    ...(flags.exportYield === false ? { yieldToRequests: false } : {}),
    ...(s3 ? { s3 } : {}),
  };
}
