/**
 * The registry and coverage reads of src/store/registry.ts and
 * src/store/coverage.ts in ClickHouse SQL. Same answers; state tables are
 * read with FINAL (their latest version, docs/storage.md).
 */
import type { Interval } from '../intervals.ts';
import type { CoverageRow, PoolRow, TokenDeployment, TokenListing } from '../types.ts';
import { parseClickHouseTime } from './time.ts';
import type { ClickHouseStore } from './types.ts';

export async function tokensBySymbol(s: ClickHouseStore, network: string, symbol: string): Promise<TokenDeployment[]> {
  return s.query<TokenDeployment>(
    `SELECT symbol, address, decimals FROM ${s.table('tokens')}
     WHERE network = {network:String} AND address != '' AND (upper(symbol) = {sym:String} OR has(arrayMap(a -> upper(a), aliases), {sym:String}))
     ORDER BY (upper(symbol) = {sym:String}) DESC, symbol`,
    { network, sym: symbol },
  );
}

export async function registryAddress(s: ClickHouseStore, network: string, input: string): Promise<string | null> {
  const rows = await s.query<{ address: string }>(
    `SELECT address FROM ${s.table('tokens')} WHERE network = {network:String} AND lower(address) = lower({input:String})
     ORDER BY (address = {input:String}) DESC LIMIT 1`,
    { network, input },
  );
  return rows[0]?.address ?? null;
}

export async function contractDecimals(s: ClickHouseStore, network: string, address: string): Promise<number | null> {
  const rows = await s.query<{ decimals: number }>(
    `SELECT decimals FROM (
       SELECT toNullable(decimals) AS decimals, 0 AS pref FROM ${s.table('tokens')} WHERE network = {network:String} AND address = {address:String}
       UNION ALL SELECT decimals, 1 AS pref FROM ${s.table('token_cache')} FINAL
         WHERE network = {network:String} AND address = {address:String} AND decimals IS NOT NULL)
     ORDER BY pref LIMIT 1`,
    { network, address },
  );
  return rows[0]?.decimals ?? null;
}

export async function symbolsWithAlias(s: ClickHouseStore, network: string, alias: string): Promise<string[]> {
  const rows = await s.query<{ symbol: string }>(
    `SELECT DISTINCT upper(symbol) AS symbol FROM ${s.table('tokens')}
     WHERE network = {network:String} AND has(arrayMap(a -> upper(a), aliases), {sym:String})`,
    { network, sym: alias },
  );
  return rows.map((r) => r.symbol);
}

export async function poolsBetween(s: ClickHouseStore, network: string, a: readonly string[], b: readonly string[]): Promise<PoolRow[]> {
  return s.query<PoolRow>(
    `SELECT pool_address, token0, token1, fee FROM ${s.table('pools')}
     WHERE network = {network:String}
       AND ((has({a:Array(String)}, upper(token0)) AND has({b:Array(String)}, upper(token1)))
         OR (has({b:Array(String)}, upper(token0)) AND has({a:Array(String)}, upper(token1))))
     ORDER BY fee`,
    { network, a, b },
  );
}

export async function tokenDirectory(s: ClickHouseStore): Promise<TokenListing[]> {
  const rows = await s.query<{ symbol: string; name: string; aliases: string[]; deployments: [string, string, number][] }>(
    `SELECT symbol, any(name) AS name, any(aliases) AS aliases,
            arraySort(d -> d.1, groupArray((network, address, decimals))) AS deployments
     FROM ${s.table('tokens')} GROUP BY symbol ORDER BY symbol`,
  );
  return rows.map((r) => ({
    symbol: r.symbol,
    name: r.name,
    aliases: r.aliases,
    deployments: r.deployments.map(([network, address, decimals]) => ({ network, address, decimals })),
  }));
}

type IntervalText = { lo: number; hi: number } | [number, number];
const toInterval = (i: IntervalText): Interval => (Array.isArray(i) ? { lo: Number(i[0]), hi: Number(i[1]) } : { lo: Number(i.lo), hi: Number(i.hi) });

export async function coveredIntervals(s: ClickHouseStore, dataset: string, scope: string): Promise<Interval[]> {
  const rows = await s.query<{ intervals: IntervalText[] }>(`SELECT intervals FROM ${s.table('coverage')} FINAL WHERE dataset = {dataset:String} AND scope = {scope:String}`, { dataset, scope });
  return (rows[0]?.intervals ?? []).map(toInterval);
}

export async function coveredScopes(s: ClickHouseStore, dataset: string): Promise<string[]> {
  const rows = await s.query<{ scope: string }>(`SELECT scope FROM ${s.table('coverage')} FINAL WHERE dataset = {dataset:String} AND notEmpty(intervals) ORDER BY scope`, { dataset });
  return rows.map((r) => r.scope);
}

export async function blocksAround(s: ClickHouseStore, network: string, sinceMs: number, untilMs: number): Promise<{ before: number | null; after: number | null }> {
  const blocks = s.table('blocks');
  const [edges] = await s.query<{ before: number | null; after: number | null }>(
    `SELECT (SELECT maxOrNull(number) FROM ${blocks} WHERE network = {network:String} AND time < fromUnixTimestamp64Milli({since:Int64}, 'UTC')) AS before,
            (SELECT minOrNull(number) FROM ${blocks} WHERE network = {network:String} AND time >= fromUnixTimestamp64Milli({until:Int64}, 'UTC')) AS after`,
    { network, since: sinceMs, until: untilMs },
  );
  return { before: edges?.before ?? null, after: edges?.after ?? null };
}

export async function isEmptyStore(s: ClickHouseStore): Promise<boolean> {
  const [r] = await s.query<{ n: number }>(`SELECT (SELECT count() FROM ${s.table('coverage')}) + (SELECT count() FROM ${s.table('api_keys')}) AS n`);
  return Number(r?.n ?? 0) === 0;
}

/** The time of the first (or last) stored block of `network` inside [lo, hi]: one granule read through the sorting key. */
async function edgeBlockTime(s: ClickHouseStore, network: string, lo: number, hi: number, last: boolean): Promise<Date | null> {
  const rows = await s.query<{ time: string }>(
    `SELECT time FROM ${s.table('blocks')} WHERE network = {network:String} AND number BETWEEN {lo:Int64} AND {hi:Int64}
     ORDER BY number ${last ? 'DESC' : 'ASC'} LIMIT 1`,
    { network, lo, hi },
  );
  return parseClickHouseTime(rows[0]?.time ?? null);
}

export async function coverageRows(s: ClickHouseStore, datasets: readonly string[]): Promise<CoverageRow[]> {
  if (datasets.length === 0) return [];
  const rows = await s.query<{ dataset: string; scope: string; intervals: IntervalText[]; advanced: string | null; conf: number | null }>(
    `SELECT c.dataset AS dataset, c.scope AS scope, c.intervals AS intervals, st.advanced_at AS advanced, k.confirmations AS conf
     FROM (SELECT dataset, scope, intervals FROM ${s.table('coverage')} FINAL WHERE has({datasets:Array(String)}, dataset)) AS c
     LEFT JOIN (SELECT dataset, scope, toNullable(advanced_at) AS advanced_at FROM ${s.table('coverage_state')} FINAL) AS st
       ON st.dataset = c.dataset AND st.scope = c.scope
     LEFT JOIN (SELECT scope, toNullable(confirmations) AS confirmations FROM ${s.table('chain_state')} FINAL) AS k ON k.scope = c.scope
     ORDER BY dataset, scope
     SETTINGS join_use_nulls = 1`,
    { datasets },
  );
  // The datasets of one network mostly cover the same intervals: each interval's edge times are read once, not once per dataset.
  const edges = new Map<string, { timeLo: Date | null; timeHi: Date | null }>();
  const out: CoverageRow[] = [];
  for (const r of rows) {
    for (const i of r.intervals.map(toInterval).sort((a, b) => a.lo - b.lo)) {
      const k = `${r.scope}\u0000${i.lo}\u0000${i.hi}`;
      let e = edges.get(k);
      if (!e) {
        e = { timeLo: await edgeBlockTime(s, r.scope, i.lo, i.hi, false), timeHi: await edgeBlockTime(s, r.scope, i.lo, i.hi, true) };
        edges.set(k, e);
      }
      out.push({
        dataset: r.dataset,
        scope: r.scope,
        lo: i.lo,
        hi: i.hi,
        ...e,
        advancedAt: parseClickHouseTime(r.advanced),
        confirmations: r.conf === null ? null : Number(r.conf),
      });
    }
  }
  return out;
}

/** The checksum of the source file that last filled a period (ingest_files keeps every ingestion of a file; the newest counts). */
export async function recordedChecksum(s: ClickHouseStore, source: string, path: string): Promise<string | null> {
  const rows = await s.query<{ sha256: string }>(`SELECT sha256 FROM ${s.table('ingest_files')} WHERE source = {source:String} AND path = {path:String} ORDER BY ingested_at DESC LIMIT 1`, {
    source,
    path,
  });
  return rows[0]?.sha256 ?? null;
}
