/**
 * The DuckDB store's usage ledger: a charge is durable once recorded (in the
 * journal beside the store), reaches `usage_charges` in the background, and
 * what a crash leaves in the journal is applied when the store opens again,
 * once, whatever the table already holds. A charge written ahead of its
 * response's end is pending: it stands only once confirmed, also after a crash.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { JOURNAL_FILE, ROTATE_BYTES } from '../../src/store/journalLedger.ts';
import { createStore } from '../../src/store/openStore.ts';
import type { Store } from '../../src/store/types.ts';
import { engineSql } from '../helpers/engineSql.ts';
import { killedAfter } from '../helpers/killedAfter.ts';

const dirs: string[] = [];
const newDir = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-ledger-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

const charge = (requestId: string, cost = 100) => ({ keyId: 'key1', period: '2026-11', requestId, cost, admittedAt: Date.parse('2026-11-24T12:00:00Z'), endpoint: '/v1/evm/erc20/events/transfer' });

const tableIds = async (store: Store) => (await engineSql(store).all<{ request_id: string }>('SELECT request_id FROM usage_charges ORDER BY request_id')).map((r) => r.request_id);

describe('the DuckDB usage ledger', () => {
  it('puts recorded charges in usage_charges, grouped, with their fields', async () => {
    const store = await createStore({ dataDir: newDir() });
    await Promise.all(Array.from({ length: 50 }, (_, i) => store.ledger!.record([charge(`r${String(i).padStart(2, '0')}`, i + 1)])));
    await store.ledger!.settle();
    expect(await tableIds(store)).toHaveLength(50);
    const [row] = await engineSql(store).all<{ key_id: string; period: string; cost: bigint; admitted: string; endpoint: string; charged_ok: boolean }>(
      `SELECT key_id, period, cost, strftime(admitted_at, '%Y-%m-%dT%H:%M:%SZ') AS admitted, endpoint,
              charged_at BETWEEN admitted_at AND timezone('UTC', now()) AS charged_ok
       FROM usage_charges WHERE request_id = 'r09'`,
    );
    expect(row).toEqual({ key_id: 'key1', period: '2026-11', cost: 10n, admitted: '2026-11-24T12:00:00Z', endpoint: '/v1/evm/erc20/events/transfer', charged_ok: true });
    await store.close();
  });

  it('applies in the background, without being asked', async () => {
    const store = await createStore({ dataDir: newDir() });
    await store.ledger!.record([charge('a')]);
    await expect.poll(() => tableIds(store), { timeout: 2000 }).toEqual(['a']);
    await store.close();
  });

  it('a charge recorded by a process killed before applying it is in the table when the store opens again, once', async () => {
    const dir = newDir();
    // A child records three charges and is killed with SIGKILL before its journal is applied.
    await killedAfter(
      'duckdb',
      dir,
      `
      await store.ledger.record([c('x1')]);
      await store.ledger.settle();
      await Promise.all([store.ledger.record([c('x2')]), store.ledger.record([c('x3')])]);
    `,
    );

    expect(fs.readFileSync(path.join(dir, JOURNAL_FILE), 'utf8')).toContain('"x3"');
    // A torn line (a write cut by the crash, never acknowledged) is not a charge.
    fs.appendFileSync(path.join(dir, JOURNAL_FILE), '{"keyId":"key1","period":"2026-11","requestId":"torn"');
    const store = await createStore({ dataDir: dir });
    expect(await tableIds(store)).toEqual(['x1', 'x2', 'x3']);
    expect(fs.readdirSync(dir).filter((f) => f.startsWith(JOURNAL_FILE) && fs.statSync(path.join(dir, f)).size > 0)).toEqual([]);
    await store.close();
  });

  it('usage.charged names a charge made durable by a process killed before applying it (an export partition resumed after a crash is not paid twice)', async () => {
    const dir = newDir();
    await killedAfter('duckdb', dir, `await store.ledger.record([c('exp-1-3')]);`);
    const store = await createStore({ dataDir: dir });
    expect(await store.usage.charged('exp-1-3')).toBe(true);
    expect(await store.usage.charged('exp-1-4')).toBe(false);
    await store.ledger!.record([charge('live')]);
    expect(await store.usage.charged('live')).toBe(true);
    await store.close();
  });

  it('keeps one journal until it has grown large, then rotates it out and removes it once all it holds is in the table; a clean close leaves it empty', async () => {
    const dir = newDir();
    const store = await createStore({ dataDir: dir });
    const journalBytes = () => fs.statSync(path.join(dir, JOURNAL_FILE)).size;
    await store.ledger!.record([charge('first')]);
    await store.ledger!.settle();
    // Applied, and still in the journal: no rotation on every apply.
    expect(await tableIds(store)).toEqual(['first']);
    expect(journalBytes()).toBeGreaterThan(0);
    const lineBytes = journalBytes();
    const n = Math.ceil((2 * ROTATE_BYTES) / lineBytes);
    for (let i = 0; i < n; i += 500) {
      await Promise.all(Array.from({ length: Math.min(500, n - i) }, (_, j) => store.ledger!.record([charge(`c${String(i + j).padStart(6, '0')}`)])));
      await store.ledger!.settle();
    }
    expect(await engineSql(store).all('SELECT count(*)::INTEGER AS n FROM usage_charges')).toEqual([{ n: n + 1 }]);
    // Twice ROTATE_BYTES were written: the journal was rotated out, and the rotated files are gone.
    expect(journalBytes()).toBeLessThan(ROTATE_BYTES + 500 * lineBytes);
    expect(fs.readdirSync(dir).filter((f) => f.startsWith(`${JOURNAL_FILE}.`))).toEqual([]);
    await store.close();
    expect(journalBytes()).toBe(0);
  });

  it('a journal whose charges the table already holds is not applied twice', async () => {
    const dir = newDir();
    const first = await createStore({ dataDir: dir });
    await first.ledger!.record([charge('a'), charge('b')]);
    await first.close();
    // As if the process had died after applying the journal but before removing it.
    fs.writeFileSync(
      path.join(dir, `${JOURNAL_FILE}.000000000001.applying`),
      `${JSON.stringify({ ...charge('a'), chargedAt: Date.now() })}\n${JSON.stringify({ ...charge('c'), chargedAt: Date.now() })}\n`,
    );
    const again = await createStore({ dataDir: dir });
    expect(await tableIds(again)).toEqual(['a', 'b', 'c']);
    await again.close();
  });

  it('a charge written ahead reaches the table only once its confirmation is durable; a dropped one never does, and a clean close leaves neither behind', async () => {
    const dir = newDir();
    const store = await createStore({ dataDir: dir });
    const journal = () => fs.readFileSync(path.join(dir, JOURNAL_FILE), 'utf8');
    const kept = store.ledger!.recordAhead!(charge('kept'));
    const dropped = store.ledger!.recordAhead!(charge('dropped'));
    await Promise.all([kept.durable, dropped.durable]);
    // Durable, marked pending, and not charged yet: the request is still running.
    expect(journal()).toContain('"requestId":"kept","cost":100,"admittedAt"');
    expect(
      journal()
        .split('\n')
        .filter((l) => l.includes('"kept"')),
    ).toEqual([expect.stringContaining('"pending":true')]);
    await store.ledger!.settle();
    expect(await tableIds(store)).toEqual([]);
    await kept.confirm();
    expect(journal()).toContain('{"confirmed":"kept","at":');
    await dropped.drop();
    // Dropping writes nothing: without a confirmation the pending line counts for nothing.
    expect(journal()).not.toContain('"confirmed":"dropped"');
    expect(journal()).not.toContain('withdrawn');
    await store.ledger!.settle();
    expect(await tableIds(store)).toEqual(['kept']);
    await store.close();
    expect(fs.statSync(path.join(dir, JOURNAL_FILE)).size).toBe(0);
    const again = await createStore({ dataDir: dir });
    expect(await tableIds(again)).toEqual(['kept']);
    await again.close();
  });

  it('after a crash, only the confirmed charges written ahead are charged: one pending at the crash (its body never sent) or dropped is not', async () => {
    const dir = newDir();
    await killedAfter(
      'duckdb',
      dir,
      `
      const inFlight = store.ledger.recordAhead(c('in-flight'));
      const failed = store.ledger.recordAhead(c('failed'));
      const delivered = store.ledger.recordAhead(c('delivered'));
      await Promise.all([inFlight.durable, failed.durable, delivered.durable]);
      await failed.drop();
      await delivered.confirm();
      await store.ledger.record([c('plain')]);
    `,
    );
    const store = await createStore({ dataDir: dir });
    expect(await tableIds(store)).toEqual(['delivered', 'plain']);
    await store.close();
  });

  it('a journal left by an earlier version recovers as it did: its charges written ahead and not withdrawn stand, withdrawn ones do not', async () => {
    const dir = newDir();
    const at = Date.parse('2026-11-24T12:00:01Z');
    // The lines as the version before pending charges wrote them: a charge line, written ahead or not, and withdrawals.
    const lines = [
      { ...charge('recorded'), chargedAt: at },
      { ...charge('ahead-delivered'), chargedAt: at },
      { ...charge('ahead-withdrawn'), chargedAt: at },
      { withdrawn: 'ahead-withdrawn' },
      { ...charge('ahead-in-flight'), chargedAt: at },
    ];
    fs.writeFileSync(path.join(dir, JOURNAL_FILE), `${lines.map((l) => JSON.stringify(l)).join('\n')}\n{"keyId":"key1","per`);
    const store = await createStore({ dataDir: dir });
    expect(await tableIds(store)).toEqual(['ahead-delivered', 'ahead-in-flight', 'recorded']);
    expect(await engineSql(store).all<{ n: number }>('SELECT count(*)::INTEGER AS n FROM usage_charges WHERE charged_at = epoch_ms($at::BIGINT)', { at: BigInt(at) })).toEqual([{ n: 3 }]);
    await store.close();
  });

  it('a rotated journal holding a charge written ahead stays until that charge is settled and applied', async () => {
    const dir = newDir();
    const store = await createStore({ dataDir: dir });
    const rotated = () => fs.readdirSync(dir).filter((f) => f.startsWith(`${JOURNAL_FILE}.`));
    const early = store.ledger!.recordAhead!(charge('early'));
    await early.durable;
    const lineBytes = fs.statSync(path.join(dir, JOURNAL_FILE)).size;
    const n = Math.ceil((2 * ROTATE_BYTES) / lineBytes);
    for (let i = 0; i < n; i += 500) {
      await Promise.all(Array.from({ length: Math.min(500, n - i) }, (_, j) => store.ledger!.record([charge(`c${String(i + j).padStart(6, '0')}`)])));
      await store.ledger!.settle();
    }
    // The file with the unsettled charge was rotated out and is kept; the charge is not in the table.
    expect(rotated().length).toBeGreaterThan(0);
    expect(rotated().some((f) => fs.readFileSync(path.join(dir, f), 'utf8').includes('"early"'))).toBe(true);
    expect(await engineSql(store).all("SELECT count(*)::INTEGER AS n FROM usage_charges WHERE request_id = 'early'")).toEqual([{ n: 0 }]);
    await early.confirm();
    await store.ledger!.settle();
    expect(await engineSql(store).all("SELECT count(*)::INTEGER AS n FROM usage_charges WHERE request_id = 'early'")).toEqual([{ n: 1 }]);
    expect(rotated()).toEqual([]);
    await store.close();
  });

  it('an in-memory store writes charges straight to its table', async () => {
    const store = await createStore({ dataDir: null });
    await store.ledger!.record([charge('m')]);
    expect(await tableIds(store)).toEqual(['m']);
    await store.close();
  });

  it('a read-only store has no ledger', async () => {
    const dir = newDir();
    await (await createStore({ dataDir: dir })).close();
    const ro = await createStore({ dataDir: dir, readOnly: true });
    expect(ro.ledger).toBeUndefined();
    await ro.close();
  });
});
