/**
 * The venue_b adapter.
 *
 * - fills, trades and positions: from the node's hourly fills files,
 *   `node_fills_by_block/hourly/YYYYMMDD/H` (JSON lines, one block per line:
 *   `{"local_time","block_time","block_number","events":[[user, fill], …]}`),
 *   plain as a node writes them or `.lz4` as the public bucket stores them,
 *   under a base URL or a local directory. The unit and checkpoint is one
 *   hour file: for each token, its fills, the trades derived from them (the
 *   taker side: `crossed` fills, one per trade id) and the position
 *   snapshots derived from them (venueBPositions.ts) are replaced and the
 *   hour covered, as one unit of the store (docs/storage.md, "Venue
 *   writes"). Hours go in time order, because each hour's positions
 *   start from the previous snapshots.
 * - candles: the info API's candleSnapshot, 1-minute, one request per day.
 * - funding: the info API's fundingHistory, paginated, stored per day.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decompressFrame } from 'lz4-napi';
import { venueBFills, venueBFunding, venueBOhlcv, venueBPositions, venueBRawTrades } from '../../catalog/venues/venue_b.ts';
import { toSqlTimestamp } from '../../query/time.ts';
import type { PriorPosition, StagedFill, Store, TableRow } from '../../store/types.ts';
import type { HttpOptions } from '../http/fetchWithRetry.ts';
import { createFileSource, type FileSource } from '../http/fileSource.ts';
import { emptySummary, silentProgress, type IngestHooks, type IngestProgress, type IngestSummary } from '../progress.ts';
import { utcDays, utcHours, type Period } from './periods.ts';
import { CANDLE_HISTORY, createVenueBInfoClient, VENUE_B_DEFAULT_INFO_URL, type VenueBInfoClient } from './venueBInfo.ts';
import { VENUE_B_DATASETS, type VenueBDataset } from './venueBDatasets.ts';
import { derivePositions, type PositionState } from './venueBPositions.ts';
import { isCovered } from './venueCoverage.ts';

/** Coverage datasets completed by one hour file. */
const FILL_DATASETS = [venueBFills.id, venueBRawTrades.id, venueBPositions.id];

export interface VenueBIngestOptions {
  readonly store: Store;
  /** Coins as the venue spells them (BTC, ETH, kPEPE); stored upper-case. */
  readonly tokens: readonly string[];
  /** Epoch ms: hours/days starting in [since, until). */
  readonly since: number;
  readonly until: number;
  /** Node data root holding node_fills_by_block/ (a URL or a directory); required for fills. */
  readonly source?: string | undefined;
  readonly infoUrl?: string;
  readonly datasets?: readonly VenueBDataset[];
  readonly force?: boolean;
  readonly http: HttpOptions;
  readonly tmpDir?: string;
  readonly progress?: IngestProgress;
  readonly hooks?: IngestHooks;
  /** The clock, for deciding which hours and days are over (tests pin it). */
  readonly now?: number;
}

const COIN = /^[A-Za-z0-9@:/_-]{1,32}$/;

export async function ingestVenueB(opts: VenueBIngestOptions): Promise<IngestSummary> {
  for (const t of opts.tokens) if (!COIN.test(t)) throw new Error(`not a coin name: '${t}'`);
  const summary = emptySummary();
  const datasets = opts.datasets ?? VENUE_B_DATASETS;
  const now = opts.now ?? Date.now();
  const progress = opts.progress ?? silentProgress;
  const info = createVenueBInfoClient(opts.infoUrl ?? VENUE_B_DEFAULT_INFO_URL, opts.http);
  if (datasets.includes('fills')) {
    if (!opts.source) throw new Error('fills, trades and positions need --source: a node data directory or URL holding node_fills_by_block/');
    await ingestFills(opts, createFileSource(opts.source, opts.http), summary, now, progress);
  }
  if (datasets.includes('candles')) await ingestCandles(opts, info, summary, now, progress);
  if (datasets.includes('funding')) await ingestFunding(opts, info, summary, now, progress);
  return summary;
}

// ---------------------------------------------------------------------------
// Fills, trades, positions

export const fillsPath = (hour: Period) => `node_fills_by_block/hourly/${hour.label}`;

async function ingestFills(opts: VenueBIngestOptions, source: FileSource, summary: IngestSummary, now: number, progress: IngestProgress): Promise<void> {
  const hours = utcHours(opts.since, opts.until);
  const tmpDir = fs.mkdtempSync(path.join(opts.tmpDir ?? os.tmpdir(), 'chainq-venue_b-'));
  progress.start(`venue_b fills ${opts.tokens.join(',')}`, hours.length);
  try {
    for (const hour of hours) {
      opts.hooks?.signal?.throwIfAborted();
      const rel = fillsPath(hour);
      progress.advance(0, rel);
      if (hour.hi >= now) {
        summary.missing.push(`${rel} (the hour is not over yet)`);
        progress.advance(1, rel);
        continue;
      }
      const coins: string[] = [];
      for (const coin of opts.tokens) {
        if (opts.force || !(await isCovered(opts.store, FILL_DATASETS, coin.toUpperCase(), hour.lo, hour.hi))) coins.push(coin);
      }
      if (coins.length === 0) {
        summary.skipped++;
        progress.advance(1, rel);
        continue;
      }
      const file = await fetchFillsFile(source, rel, tmpDir);
      if (file === null) {
        summary.missing.push(rel);
        progress.advance(1, rel);
        continue;
      }
      try {
        summary.rows += await commitHour(opts.store, file.path, coins, hour, opts.hooks);
        summary.done++;
      } finally {
        if (file.temporary) fs.rmSync(file.path, { force: true });
      }
      progress.advance(1, rel);
      await opts.hooks?.afterCommit?.(rel);
    }
  } finally {
    progress.stop();
    fs.rmSync(tmpDir, { recursive: true, force: true });
  }
}

/** The hour file as plain JSON lines on disk: as is, or decompressed from `.lz4`. */
async function fetchFillsFile(source: FileSource, rel: string, tmpDir: string): Promise<{ path: string; temporary: boolean } | null> {
  const plain = await source.fetch(rel, tmpDir);
  if (plain) return { path: plain.file, temporary: plain.temporary };
  const packed = await source.fetch(`${rel}.lz4`, tmpDir);
  if (!packed) return null;
  try {
    const out = path.join(tmpDir, `${path.basename(rel)}-${process.pid}-${Date.now()}.jsonl`);
    fs.writeFileSync(out, await decompressFrame(fs.readFileSync(packed.file)));
    return { path: out, temporary: true };
  } finally {
    if (packed.temporary) fs.rmSync(packed.file, { force: true });
  }
}

/**
 * Replaces, per token, the hour's fills, the trades derived from them and
 * the position snapshots derived from them, keyed by what identifies them
 * (a fill stored under a neighbouring hour's file is replaced, not
 * doubled), and covers the hour.
 */
function commitHour(store: Store, file: string, coins: readonly string[], hour: Period, hooks: IngestHooks | undefined): Promise<number> {
  return store.venues.importFills({ file, coins, lo: hour.lo, hi: hour.hi, datasets: FILL_DATASETS, positions: positionRows, onStep: hooks?.duringPublish });
}

/** A token's position snapshots (rows of venue_b_positions, by time then wallet) from its fills and each wallet's prior snapshot. */
function positionRows(token: string, prior: readonly PriorPosition[], fills: readonly StagedFill[]): TableRow[] {
  const state = new Map<string, PositionState>(prior.map((r) => [r.wallet, { size: r.side === 'short' ? -r.size : r.size, entry: r.avgEntry }]));
  const snapshots = derivePositions(fills, state);
  snapshots.sort((a, b) => a.timeMs - b.timeMs || (a.wallet < b.wallet ? -1 : 1));
  return snapshots.map((s) => [token, toSqlTimestamp(s.timeMs), s.wallet, s.side, s.size, s.avgEntry, s.markPrice, s.unrealizedPnl]);
}

// ---------------------------------------------------------------------------
// Candles and funding (info API)

async function ingestCandles(opts: VenueBIngestOptions, info: VenueBInfoClient, summary: IngestSummary, now: number, progress: IngestProgress): Promise<void> {
  const days = utcDays(opts.since, opts.until);
  progress.start(`venue_b candles ${opts.tokens.join(',')}`, days.length * opts.tokens.length);
  try {
    for (const coin of opts.tokens) {
      const token = coin.toUpperCase();
      for (const day of days) {
        const label = `candles ${coin} ${day.label}`;
        if (day.hi >= now) {
          summary.missing.push(`${label} (the day is not over yet)`);
        } else if (!opts.force && (await isCovered(opts.store, [venueBOhlcv.id], token, day.lo, day.hi))) {
          summary.skipped++;
        } else {
          const candles = await info.candles(coin, day.lo, day.hi);
          // The API keeps only the latest 5000 candles: a day reaching past them comes back cut at its start.
          const complete = candles.length > 0 && (candles[0]!.t === day.lo || day.lo >= now - CANDLE_HISTORY * 60_000);
          if (candles.length === 0) {
            summary.missing.push(`${label} (the info API has no candles for it; it keeps only the latest ${CANDLE_HISTORY})`);
          } else {
            await opts.store.venues.replaceRows({
              token,
              table: venueBOhlcv.table.name,
              lo: day.lo,
              hi: day.hi,
              datasets: [venueBOhlcv.id],
              rows: candles.map((c) => [token, toSqlTimestamp(c.t), Number(c.o), Number(c.h), Number(c.l), Number(c.c), Number(c.v), c.n]),
              complete,
              onStep: opts.hooks?.duringPublish,
            });
            summary.rows += candles.length;
            if (complete) summary.done++;
            else summary.partial.push(`${label} (starts at ${new Date(candles[0]!.t).toISOString()}: older candles are past the API's ${CANDLE_HISTORY}-candle history)`);
            await opts.hooks?.afterCommit?.(label);
          }
        }
        progress.advance(1, label);
      }
    }
  } finally {
    progress.stop();
  }
}

async function ingestFunding(opts: VenueBIngestOptions, info: VenueBInfoClient, summary: IngestSummary, now: number, progress: IngestProgress): Promise<void> {
  const days = utcDays(opts.since, opts.until);
  progress.start(`venue_b funding ${opts.tokens.join(',')}`, days.length * opts.tokens.length);
  try {
    for (const coin of opts.tokens) {
      const token = coin.toUpperCase();
      const todo: Period[] = [];
      for (const day of days) {
        if (day.hi >= now) summary.missing.push(`funding ${coin} ${day.label} (the day is not over yet)`);
        else if (!opts.force && (await isCovered(opts.store, [venueBFunding.id], token, day.lo, day.hi))) summary.skipped++;
        else todo.push(day);
      }
      if (todo.length) {
        const entries = await info.funding(coin, todo[0]!.lo, todo[todo.length - 1]!.hi);
        for (const day of todo) {
          const rows = entries.filter((e) => e.time >= day.lo && e.time <= day.hi);
          if (rows.length === 0) {
            // Funding is paid every hour on a listed coin: an empty day means the API has nothing, not "no funding".
            summary.missing.push(`funding ${coin} ${day.label} (the info API has no funding entries for it)`);
            progress.advance(1, `funding ${coin} ${day.label}`);
            continue;
          }
          await opts.store.venues.replaceRows({
            token,
            table: venueBFunding.table.name,
            lo: day.lo,
            hi: day.hi,
            datasets: [venueBFunding.id],
            rows: rows.map((e) => [token, toSqlTimestamp(e.time), Number(e.fundingRate), Number(e.premium)]),
            complete: true,
            onStep: opts.hooks?.duringPublish,
          });
          summary.rows += rows.length;
          summary.done++;
          progress.advance(1, `funding ${coin} ${day.label}`);
          await opts.hooks?.afterCommit?.(`funding ${coin} ${day.label}`);
        }
      }
      progress.advance(days.length - todo.length, `funding ${coin}`);
    }
  } finally {
    progress.stop();
  }
}
