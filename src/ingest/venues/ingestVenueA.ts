/**
 * The venue_a adapter: download each archive file (or read it from a local
 * mirror), verify it against its .CHECKSUM, unzip the CSV, and let the
 * store load it. The unit and checkpoint is one file = one (kind, token, day or
 * month): its rows replace the period's rows and its coverage is recorded
 * in the same transaction (on ClickHouse: published as one unit,
 * docs/storage.md), together with the file's sha256.
 */
import { refreshPrices } from '../../reference/prices.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Store } from '../../store/types.ts';
import { Semaphore } from '../../utils/semaphore.ts';
import type { HttpOptions } from '../http/fetchWithRetry.ts';
import { createFileSource, type FetchedFile, type FileSource } from '../http/fileSource.ts';
import { emptySummary, silentProgress, type IngestHooks, type IngestProgress, type IngestSummary } from '../progress.ts';
import { utcDays, utcMonths, type Period } from './periods.ts';
import { hasHeaderRow, unzipCsv } from './unzip.ts';
import { archivePath, checksumFileName, parseChecksum, VENUE_A_KINDS, VENUE_A_SPECS, type VenueAKind, type VenueAKindSpec } from './venueAArchive.ts';
import { isCovered } from './venueCoverage.ts';

export const VENUE_A_DEFAULT_ARCHIVE = 'https://data.binance.vision';
const SOURCE = 'venue_a';

export interface VenueAIngestOptions {
  readonly store: Store;
  /** Base URL of the archive, or a local directory in the same layout. */
  readonly archive: string;
  /** Token symbols (BTC); the market is <TOKEN><quote>. */
  readonly tokens: readonly string[];
  readonly quote?: string;
  /** Epoch ms; days starting in [since, until) are ingested (months overlapping it for fundingRate). */
  readonly since: number;
  readonly until: number;
  readonly kinds?: readonly VenueAKind[];
  /** Re-ingest files even where coverage says they are done. */
  readonly force?: boolean;
  /** For files already ingested, compare the archive's current checksum with the stored one and re-ingest replaced files. */
  readonly refresh?: boolean;
  /** Files downloaded at once (loading into the store is one at a time). */
  readonly concurrency?: number;
  readonly http: HttpOptions;
  readonly tmpDir?: string;
  readonly progress?: IngestProgress;
  readonly hooks?: IngestHooks;
  /** The clock, for deciding which periods are over (tests pin it). */
  readonly now?: number;
}

interface Unit {
  readonly spec: VenueAKindSpec;
  readonly token: string;
  readonly symbol: string;
  readonly period: Period;
  readonly rel: string;
}

export async function ingestVenueA(opts: VenueAIngestOptions): Promise<IngestSummary> {
  const summary = emptySummary();
  const progress = opts.progress ?? silentProgress;
  const source = createFileSource(opts.archive, opts.http);
  const now = opts.now ?? Date.now();
  const quote = opts.quote ?? 'USDT';
  const units: Unit[] = [];
  for (const kind of opts.kinds ?? VENUE_A_KINDS) {
    const spec = VENUE_A_SPECS[kind];
    for (const token of opts.tokens) {
      const symbol = `${token}${quote}`;
      const periods = spec.period === 'day' ? utcDays(opts.since, opts.until) : utcMonths(opts.since, opts.until);
      for (const period of periods) {
        const rel = archivePath(kind, symbol, period.label);
        // The archive publishes a period's file after the period ends.
        if (period.hi >= now) summary.missing.push(`${rel} (the period is not over yet)`);
        else units.push({ spec, token, symbol, period, rel });
      }
    }
  }
  const tmpDir = fs.mkdtempSync(path.join(opts.tmpDir ?? os.tmpdir(), 'chainq-venue_a-'));
  const downloads = new Semaphore(Math.max(1, opts.concurrency ?? 4));
  const commits = new Semaphore(1);
  let fatal: unknown = null;
  progress.start(`venue_a ${opts.tokens.join(',')} ${(opts.kinds ?? VENUE_A_KINDS).join(',')}`, units.length);

  const work = async (u: Unit): Promise<void> => {
    const label = `${u.spec.kind} ${u.symbol} ${u.period.label}`;
    const releaseDownload = await downloads.acquire();
    let csv: string | null = null;
    let zip: FetchedFile | null = null;
    try {
      if (fatal) return;
      opts.hooks?.signal?.throwIfAborted();
      const covered = await isCovered(opts.store, u.spec.datasets, u.token, u.period.lo, u.period.hi);
      if (covered && !opts.force) {
        const replaced = opts.refresh ? await replacedUpstream(opts.store, source, u.rel) : false;
        if (!replaced) {
          summary.skipped++;
          return;
        }
        progress.note(`${u.rel}: the archive's checksum changed since it was ingested; re-ingesting`);
      }
      zip = await fetchVerified(source, u.rel, tmpDir, progress);
      if (zip === null) {
        summary.missing.push(u.rel);
        return;
      }
      csv = path.join(tmpDir, `${path.basename(u.rel, '.zip')}-${process.pid}-${Math.random().toString(36).slice(2)}.csv`);
      await unzipCsv(zip.file, csv);
      const releaseCommit = await commits.acquire();
      try {
        if (fatal) return;
        const rows = await commitFile(opts.store, u, csv, zip.sha256, opts.hooks);
        summary.done++;
        summary.rows += rows;
      } finally {
        releaseCommit();
      }
    } catch (e) {
      if (opts.hooks?.signal?.aborted) throw e;
      summary.failed.push(`${u.rel}: ${e instanceof Error ? e.message : String(e)}`);
      progress.note(`failed ${u.rel}: ${e instanceof Error ? e.message : String(e)}`);
      return;
    } finally {
      releaseDownload();
      if (zip?.temporary) fs.rmSync(zip.file, { force: true });
      if (csv) fs.rmSync(csv, { force: true });
      progress.advance(1, label);
    }
    await opts.hooks?.afterCommit?.(u.rel);
  };

  try {
    await Promise.all(
      units.map((u) =>
        work(u).catch((e: unknown) => {
          fatal ??= e;
        }),
      ),
    );
    if (fatal) throw fatal;
  } finally {
    progress.stop();
    fs.rmSync(tmpDir, { recursive: true, force: true });
  }
  // with_value prices come from the 1-minute candles: rebuild them once new candles are in.
  if ((opts.kinds ?? VENUE_A_KINDS).includes('klines') && summary.done > 0) await refreshPrices(opts.store);
  return summary;
}

async function replacedUpstream(store: Store, source: FileSource, rel: string): Promise<boolean> {
  const stored = await store.venues.recordedChecksum(SOURCE, rel);
  const text = await source.readText(`${rel}.CHECKSUM`);
  const current = text === null ? null : parseChecksum(text);
  return current !== null && current !== stored;
}

/**
 * The zip, verified against its .CHECKSUM. Over HTTP a checksum is required
 * and a mismatch is downloaded again (twice) before it counts as a failure;
 * a local mirror without .CHECKSUM files is read unverified, with a note.
 */
async function fetchVerified(source: FileSource, rel: string, tmpDir: string, progress: IngestProgress): Promise<FetchedFile | null> {
  for (let attempt = 1; ; attempt++) {
    const zip = await source.fetch(rel, tmpDir);
    if (zip === null) return null;
    const text = await source.readText(`${rel}.CHECKSUM`);
    if (text === null) {
      if (source.isLocal) {
        progress.note(`${rel}: no .CHECKSUM beside it; loaded unverified`);
        return zip;
      }
      if (zip.temporary) fs.rmSync(zip.file, { force: true });
      throw new Error(`${rel}.CHECKSUM is missing from the archive`);
    }
    const expected = parseChecksum(text);
    if (expected === null) throw new Error(`${rel}.CHECKSUM is not a sha256 checksum file`);
    // A checksum of another file verifies nothing (a mirror that misplaced it, a file renamed by hand).
    const named = checksumFileName(text);
    if (named !== null && named !== path.basename(rel)) throw new Error(`${rel}.CHECKSUM is the checksum of ${named}, not of ${path.basename(rel)}`);
    if (expected === zip.sha256) return zip;
    if (zip.temporary) fs.rmSync(zip.file, { force: true });
    if (source.isLocal || attempt >= 3) throw new Error(`checksum mismatch: the file's sha256 is ${zip.sha256}, its .CHECKSUM says ${expected}`);
    progress.note(`${rel}: checksum mismatch, downloading again`);
  }
}

/** Replaces the period's rows with the file's, and records coverage and the file's checksum, as one unit. */
function commitFile(store: Store, u: Unit, csv: string, sha256: string, hooks: IngestHooks | undefined): Promise<number> {
  const spec = u.spec;
  return store.venues.importCsv({
    token: u.token,
    table: spec.table,
    lo: u.period.lo,
    hi: u.period.hi,
    datasets: spec.datasets,
    file: csv,
    header: hasHeaderRow(csv),
    csvColumns: spec.csvColumns,
    values: spec.values,
    orderBy: spec.orderBy,
    source: SOURCE,
    path: u.rel,
    sha256,
    onStep: hooks?.duringPublish,
  });
}
