/**
 * Coverage written by DuckDB, inside the transaction that writes the rows it
 * covers: intervals merge when they touch, a range not past everything held
 * before marks the dataset's rows out of order, and each gain is stamped in
 * `coverage_state`. (ClickHouse writes coverage when it publishes,
 * ../clickhouse/publish.ts.)
 */
import type { Tx } from './types.ts';

/** Records [lo, hi] as covered, merging with touching intervals. Call inside the transaction that wrote the rows. */
export async function addCoverage(tx: Tx, dataset: string, scope: string, lo: number, hi: number): Promise<void> {
  // Rows are appended at the table's end. If they are not past everything held
  // before, the table's physical order no longer follows the data's order.
  const [prev] = await tx.all<{ max: bigint | null }>(`SELECT max(hi) AS max FROM coverage WHERE dataset = $dataset AND scope = $scope`, { dataset, scope });
  if (prev?.max != null && lo <= Number(prev.max)) await markUnordered(tx, dataset, scope);
  const touching = await tx.all<{ lo: bigint; hi: bigint }>(`SELECT lo, hi FROM coverage WHERE dataset = $dataset AND scope = $scope AND hi >= $lo - 1 AND lo <= $hi + 1`, { dataset, scope, lo, hi });
  const mlo = Math.min(lo, ...touching.map((r) => Number(r.lo)));
  const mhi = Math.max(hi, ...touching.map((r) => Number(r.hi)));
  await tx.run(`DELETE FROM coverage WHERE dataset = $dataset AND scope = $scope AND hi >= $lo - 1 AND lo <= $hi + 1`, { dataset, scope, lo, hi });
  await tx.run(`INSERT INTO coverage VALUES ($dataset, $scope, $lo, $hi)`, { dataset, scope, lo: mlo, hi: mhi });
  await markAdvanced(tx, [dataset], scope);
}

/** Records that the datasets of `scope` gained coverage now, in the transaction that gave it. */
async function markAdvanced(tx: Tx, datasets: readonly string[], scope: string): Promise<void> {
  const names: Record<string, string> = {};
  datasets.forEach((d, i) => {
    names[`d${i}`] = d;
  });
  const list = datasets.map((_, i) => `$d${i}`).join(', ');
  await tx.run(`DELETE FROM coverage_state WHERE scope = $scope AND dataset IN (${list})`, { scope, ...names });
  await tx.run(`INSERT INTO coverage_state SELECT dataset, $scope, now()::TIMESTAMP FROM (SELECT unnest([${list}]) AS dataset)`, { scope, ...names });
}

async function markUnordered(tx: Tx, dataset: string, scope: string): Promise<void> {
  await tx.run(`DELETE FROM dataset_order WHERE dataset = $dataset AND scope = $scope`, { dataset, scope });
  await tx.run(`INSERT INTO dataset_order VALUES ($dataset, $scope, true)`, { dataset, scope });
}

/** Removes [lo, hi] from the coverage (a reorg or a re-ingest), splitting intervals. */
export async function removeCoverage(tx: Tx, dataset: string, scope: string, lo: number, hi: number): Promise<void> {
  const hit = await tx.all<{ lo: bigint; hi: bigint }>(`SELECT lo, hi FROM coverage WHERE dataset = $dataset AND scope = $scope AND hi >= $lo AND lo <= $hi`, { dataset, scope, lo, hi });
  await tx.run(`DELETE FROM coverage WHERE dataset = $dataset AND scope = $scope AND hi >= $lo AND lo <= $hi`, { dataset, scope, lo, hi });
  for (const r of hit) {
    if (Number(r.lo) < lo) await tx.run(`INSERT INTO coverage VALUES ($dataset, $scope, $a, $b)`, { dataset, scope, a: Number(r.lo), b: lo - 1 });
    if (Number(r.hi) > hi) await tx.run(`INSERT INTO coverage VALUES ($dataset, $scope, $a, $b)`, { dataset, scope, a: hi + 1, b: Number(r.hi) });
  }
}

/**
 * `addCoverage` for several datasets of one scope at once, in three or four
 * statements whatever their number (EVM ingestion records a dozen datasets
 * per committed batch, and every statement costs milliseconds). Same rules:
 * touching intervals merge, and a range not past everything held before
 * marks the dataset's rows out of order. Dataset names are ours (catalog
 * ids), never user text; they are bound as values.
 */
export async function addCoverageMany(tx: Tx, datasets: readonly string[], scope: string, lo: number, hi: number): Promise<void> {
  if (datasets.length === 0) return;
  const names: Record<string, string> = {};
  datasets.forEach((d, i) => {
    names[`d${i}`] = d;
  });
  const inList = `(${datasets.map((_, i) => `$d${i}`).join(', ')})`;
  const rows = await tx.all<{ dataset: string; lo: bigint; hi: bigint }>(`SELECT dataset, lo, hi FROM coverage WHERE scope = $scope AND dataset IN ${inList}`, { scope, ...names });
  const merged = new Map(datasets.map((d) => [d, { lo, hi, prevMax: null as number | null }]));
  for (const r of rows) {
    const m = merged.get(r.dataset)!;
    const [rlo, rhi] = [Number(r.lo), Number(r.hi)];
    m.prevMax = Math.max(m.prevMax ?? rhi, rhi);
    if (rhi >= lo - 1 && rlo <= hi + 1) {
      m.lo = Math.min(m.lo, rlo);
      m.hi = Math.max(m.hi, rhi);
    }
  }
  const behind = datasets.filter((d) => {
    const m = merged.get(d)!;
    return m.prevMax !== null && lo <= m.prevMax;
  });
  if (behind.length) {
    const b: Record<string, string> = {};
    behind.forEach((d, i) => {
      b[`b${i}`] = d;
    });
    const bList = `(${behind.map((_, i) => `$b${i}`).join(', ')})`;
    await tx.run(`DELETE FROM dataset_order WHERE scope = $scope AND dataset IN ${bList}`, { scope, ...b });
    await tx.run(`INSERT INTO dataset_order SELECT dataset, $scope, true FROM (SELECT unnest([${behind.map((_, i) => `$b${i}`).join(', ')}]) AS dataset)`, { scope, ...b });
  }
  await tx.run(`DELETE FROM coverage WHERE scope = $scope AND dataset IN ${inList} AND hi >= $lo - 1 AND lo <= $hi + 1`, { scope, lo, hi, ...names });
  const values = datasets
    .map((d, i) => {
      const m = merged.get(d)!;
      return `($d${i}, $scope, ${m.lo}, ${m.hi})`;
    })
    .join(', ');
  await tx.run(`INSERT INTO coverage VALUES ${values}`, { scope, ...names });
  await markAdvanced(tx, datasets, scope);
}
