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
 *   hour covered, in one transaction (on ClickHouse, one published unit:
 *   docs/storage.md). Hours go in time order, because each hour's positions
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
import type { Store, Tx } from '../../store/types.ts';
import type { HttpOptions } from '../http/fetchWithRetry.ts';
import { createFileSource, type FileSource } from '../http/fileSource.ts';
import { emptySummary, silentProgress, type IngestHooks, type IngestProgress, type IngestSummary } from '../progress.ts';
import { utcDays, utcHours, type Period } from './periods.ts';
import { CANDLE_HISTORY, createVenueBInfoClient, VENUE_B_DEFAULT_INFO_URL, type VenueBInfoClient } from './venueBInfo.ts';
import { VENUE_B_DATASETS, type VenueBDataset } from './venueBDatasets.ts';
import { derivePositions, type PositionFill, type PositionState } from './venueBPositions.ts';
import { commitUnit, deletePeriod, isCovered, markCovered, type UnitSpan } from './venueCoverage.ts';

/** Coverage datasets completed by one hour file, and their tables. */
const FILL_DATASETS = [venueBFills.id, venueBRawTrades.id, venueBPositions.id];
const FILL_TABLES = [venueBFills.table.name, venueBRawTrades.table.name, venueBPositions.table.name];

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

const quote = (s: string) => `'${s.replaceAll("'", "''")}'`;

/**
 * Loads the hour's fills of `coins` into a staging table and replaces, per
 * token, its fills, trades and position snapshots, then covers the hour.
 * Rows are keyed by what identifies them (trade id and wallet), not by time,
 * so a fill stored under a neighbouring hour's file is replaced, not doubled.
 */
async function commitHour(store: Store, file: string, coins: readonly string[], hour: Period, hooks: IngestHooks | undefined): Promise<number> {
  const unit = { tokens: coins.map((c) => c.toUpperCase()), lo: hour.lo, hi: hour.hi, tables: FILL_TABLES, datasets: FILL_DATASETS, complete: true };
  return commitUnit(store, unit, hooks, async (tx, span) => {
    await stageHour(tx, file, coins);
    // On ClickHouse the transaction sees only this hour: read first what the store holds where the staged
    // fills fall (their times may reach into the hour before), and each wallet's last position before that.
    if (span) await readAround(tx, span);
    let rows = 0;
    for (const coin of coins) {
      const token = coin.toUpperCase();
      const p = { token };
      await tx.run(`DELETE FROM venue_b_fills WHERE token = $token AND (tid, wallet) IN (SELECT tid, wallet FROM vb_stage WHERE token = $token)`, p);
      const [f] = await tx.all<{ Count: bigint }>(
        `INSERT INTO venue_b_fills
        SELECT token, time, wallet, price, size, side, dir, start_position, closed_pnl, fee, fee_token, crossed, tid, oid, hash, block_number
        FROM vb_stage WHERE token = $token ORDER BY time, tid, wallet`,
        p,
      );
      rows += Number(f?.Count ?? 0);
      // One trade per trade id: the taker's fill (crossed), whose side is the aggressor's.
      await tx.run(`DELETE FROM venue_b_trades WHERE token = $token AND tid IN (SELECT tid FROM vb_stage WHERE token = $token)`, p);
      const [t] = await tx.all<{ Count: bigint }>(
        `INSERT INTO venue_b_trades
        SELECT token, time, tid, price, size, side = 'B', hash FROM vb_stage WHERE token = $token AND crossed
        QUALIFY row_number() OVER (PARTITION BY tid ORDER BY block_number, seq) = 1 ORDER BY time, tid`,
        p,
      );
      rows += Number(t?.Count ?? 0);
      rows += await replacePositions(tx, token);
      await markCovered(tx, FILL_DATASETS, token, hour.lo, hour.hi);
    }
    await tx.run(`DROP TABLE vb_stage`);
    return rows;
  });
}

/** The hour file's fills of `coins`, one row per fill, in the temporary table vb_stage. */
async function stageHour(tx: Tx, file: string, coins: readonly string[]): Promise<void> {
  await tx.run(
    `CREATE TEMP TABLE vb_stage AS
    SELECT upper(f->>'coin') AS token, epoch_ms((f->>'time')::BIGINT) AS time, ev->>'$[0]' AS wallet,
           (f->>'px')::DOUBLE AS price, (f->>'sz')::DOUBLE AS size, f->>'side' AS side, f->>'dir' AS dir,
           (f->>'startPosition')::DOUBLE AS start_position, (f->>'closedPnl')::DOUBLE AS closed_pnl,
           (f->>'fee')::DOUBLE AS fee, f->>'feeToken' AS fee_token, (f->>'crossed')::BOOLEAN AS crossed,
           (f->>'tid')::BIGINT AS tid, (f->>'oid')::BIGINT AS oid, f->>'hash' AS hash, block_number, seq
    FROM (
      SELECT b.block_number, e.seq, e.ev, e.ev->'$[1]' AS f
      FROM read_json($file, format = 'newline_delimited', columns = {block_number: 'BIGINT', events: 'JSON[]'},
                     maximum_object_size = 536870912) b,
           LATERAL (SELECT unnest(b.events) AS ev, generate_subscripts(b.events, 1) AS seq) e
    ) WHERE f->>'coin' IN (${coins.map(quote).join(', ')})`,
    { file },
  );
}

/**
 * What the keyed replacement below reads beyond the staged rows, brought
 * into the scratch store: the rows held over the span from the earliest
 * staged fill (or the hour's start) to the hour's end, which the publish
 * then replaces whole, and each staged wallet's newest snapshot before it.
 */
async function readAround(tx: Tx, span: UnitSpan): Promise<void> {
  const [edges] = await tx.all<{ lo: bigint | null; hi: bigint | null }>(`SELECT epoch_ms(min(time)) AS lo, epoch_ms(max(time)) AS hi FROM vb_stage`);
  if (edges?.lo == null || edges.hi == null) return;
  await span.replace(Number(edges.lo), Number(edges.hi));
  const wallets = await tx.all<{ token: string; wallet: string }>(`SELECT DISTINCT token, wallet FROM vb_stage ORDER BY token, wallet`);
  const byToken = new Map<string, string[]>();
  for (const w of wallets) byToken.set(w.token, [...(byToken.get(w.token) ?? []), w.wallet]);
  await span.loadLatest(venueBPositions.table.name, 'wallet', byToken);
}

async function replacePositions(tx: Tx, token: string): Promise<number> {
  const p = { token };
  await tx.run(`DELETE FROM venue_b_positions WHERE token = $token AND (wallet, time) IN (SELECT wallet, time FROM vb_stage WHERE token = $token)`, p);
  // Each wallet's latest snapshot before its first fill of this hour.
  const prior = await tx.all<{ wallet: string; side: string; size: number; avg_entry: number | null }>(
    `
    SELECT p.wallet, p.side, p.size, p.avg_entry
    FROM venue_b_positions p JOIN (SELECT wallet, min(time) AS t0 FROM vb_stage WHERE token = $token GROUP BY wallet) s
      ON p.wallet = s.wallet AND p.time < s.t0
    WHERE p.token = $token
    QUALIFY row_number() OVER (PARTITION BY p.wallet ORDER BY p.time DESC) = 1`,
    p,
  );
  const state = new Map<string, PositionState>(prior.map((r) => [r.wallet, { size: r.side === 'short' ? -r.size : r.size, entry: r.avg_entry }]));
  const fills = await tx.all<{ time: Date; wallet: string; price: number; size: number; side: string; start_position: number; closed_pnl: number }>(
    `
    SELECT time, wallet, price, size, side, start_position, closed_pnl FROM vb_stage WHERE token = $token ORDER BY block_number, seq`,
    p,
  );
  const snapshots = derivePositions(
    fills.map(
      (f): PositionFill => ({
        timeMs: f.time.getTime(),
        wallet: f.wallet,
        price: f.price,
        size: f.size,
        side: f.side,
        startPosition: f.start_position,
        closedPnl: f.closed_pnl,
      }),
    ),
    state,
  );
  snapshots.sort((a, b) => a.timeMs - b.timeMs || (a.wallet < b.wallet ? -1 : 1));
  if (snapshots.length) {
    await tx.append(
      venueBPositions.table.name,
      snapshots.map((s) => [token, toSqlTimestamp(s.timeMs), s.wallet, s.side, s.size, s.avgEntry, s.markPrice, s.unrealizedPnl]),
    );
  }
  return snapshots.length;
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
            const unit = { tokens: [token], lo: day.lo, hi: day.hi, tables: [venueBOhlcv.table.name], datasets: [venueBOhlcv.id], complete };
            await commitUnit(opts.store, unit, opts.hooks, async (tx) => {
              await deletePeriod(tx, venueBOhlcv.table.name, token, day.lo, day.hi);
              await tx.append(
                venueBOhlcv.table.name,
                candles.map((c) => [token, toSqlTimestamp(c.t), Number(c.o), Number(c.h), Number(c.l), Number(c.c), Number(c.v), c.n]),
              );
              if (complete) await markCovered(tx, [venueBOhlcv.id], token, day.lo, day.hi);
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
          const unit = { tokens: [token], lo: day.lo, hi: day.hi, tables: [venueBFunding.table.name], datasets: [venueBFunding.id], complete: true };
          await commitUnit(opts.store, unit, opts.hooks, async (tx) => {
            await deletePeriod(tx, venueBFunding.table.name, token, day.lo, day.hi);
            await tx.append(
              venueBFunding.table.name,
              rows.map((e) => [token, toSqlTimestamp(e.time), Number(e.fundingRate), Number(e.premium)]),
            );
            await markCovered(tx, [venueBFunding.id], token, day.lo, day.hi);
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
