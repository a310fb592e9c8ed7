/**
 * GET /v1/coverage: what is queryable, per dataset and network (or token, for
 * venues), before any quota is spent. Derived from the catalog (which datasets
 * exist) and the coverage the store records with every committed batch.
 */
import type { CoverageEntry, CoverageFilter } from '../catalog/coverage.ts';
import { catalog } from '../catalog/index.ts';
import type { Endpoint } from '../catalog/types.ts';
import type { Store } from '../store/types.ts';
import { coverageRows, gaps, intersect, union, type CoverageRow, type Interval } from '../store/coverage.ts';
import { verificationRecords, type VerificationRecord } from '../store/verification.ts';

const iso = (d: Date | null): string | null => (d ? d.toISOString().replace('.000Z', 'Z') : null);
const isoMs = (ms: number): string => new Date(ms).toISOString().replace('.000Z', 'Z');

/** The served endpoints that hold rows of their own (aggregates share their raw endpoint's dataset). */
function datasetsOf(entries: readonly Endpoint[], f: CoverageFilter): Endpoint[] {
  return entries.filter((e) => e.served && (!f.family || e.family === f.family) && (!f.protocol || e.protocol === f.protocol));
}

export async function coverageReport(store: Store, f: CoverageFilter, entries: readonly Endpoint[] = catalog): Promise<CoverageEntry[]> {
  const endpoints = datasetsOf(entries, f);
  const byId = new Map(endpoints.map((e) => [e.id, e]));
  const rows = (await coverageRows(store, [...byId.keys()])).filter((r) => !f.network || r.scope.toUpperCase() === f.network.toUpperCase());
  const verifications = new Map<string, VerificationRecord[]>();
  for (const v of await verificationRecords(store, [...byId.keys()])) {
    const k = `${v.dataset}\u0000${v.network}`;
    verifications.set(k, [...(verifications.get(k) ?? []), v]);
  }
  const groups = new Map<string, CoverageRow[]>();
  for (const r of rows) {
    const k = `${r.dataset}\u0000${r.scope}`;
    const g = groups.get(k);
    if (g) g.push(r);
    else groups.set(k, [r]);
  }
  const out: CoverageEntry[] = [];
  for (const g of groups.values()) {
    // A group has at least one row (it was made with one), of a dataset asked for.
    const first = g.at(0);
    const last = g.at(-1);
    const e = first && byId.get(first.dataset);
    if (!first || !last || !e) continue;
    const venue = e.family === 'exchange';
    const gaps = g.slice(1).map((r, i) => ({ from: (g[i]?.hi ?? r.lo - 1) + 1, to: r.lo - 1 }));
    out.push({
      dataset: e.id,
      family: e.family,
      protocol: e.protocol,
      event: e.event,
      ...(venue ? { token: first.scope } : { network: first.scope }),
      unit: venue ? 'ms' : 'block',
      ranges: g.map((r) => (venue ? { from: r.lo, to: r.hi } : { from: r.lo, to: r.hi, time_from: iso(r.timeLo), time_to: iso(r.timeHi) })),
      gaps,
      newest: venue ? { time: isoMs(last.hi) } : { block: last.hi, time: iso(last.timeHi) },
      confirmations: venue ? null : first.confirmations,
      last_advanced: iso(first.advancedAt),
      ...verificationFields(
        venue ? [] : (verifications.get(`${first.dataset}\u0000${first.scope}`) ?? []),
        g.map((r) => ({ lo: r.lo, hi: r.hi })),
      ),
    });
  }
  return out;
}

/**
 * What the verifications of one dataset and network say, oldest first: a block
 * is verified while its latest comparison found it equal, and only where
 * the dataset is covered now (a block ingested again after it was verified
 * stays verified until the next comparison says otherwise).
 */
function verificationFields(records: readonly VerificationRecord[], covered: readonly Interval[]): Pick<CoverageEntry, 'verified_ranges' | 'last_verification'> {
  let verified: Interval[] = [];
  for (const r of records) {
    const differ = r.mismatchBlocks.map((b) => ({ lo: b, hi: b }));
    const minus = (list: readonly Interval[]) => list.flatMap((i) => gaps(i.lo, i.hi, differ));
    verified = minus(union([...verified, ...r.ranges]));
  }
  const last = records[records.length - 1];
  return {
    verified_ranges: intersect(covered, verified).map((i) => ({ from: i.lo, to: i.hi })),
    last_verification: last ? { at: last.verifiedAt.toISOString(), node: last.node, result: last.result, blocks: last.blocks, mismatches: last.mismatchBlocks.length, sampled: last.sampled } : null,
  };
}
