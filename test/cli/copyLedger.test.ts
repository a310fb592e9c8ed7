/**
 * `chainq copy` reads its DuckDB store read-only, which cannot apply charges
 * a killed server left in the usage ledger's journal: it refuses, names the
 * remedy, and once the store has been opened (here by `chainq status`) the
 * charges are in usage_charges.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { JOURNAL_FILE, unappliedJournalCharges } from '../../src/store/journalLedger.ts';
import { createStore } from '../../src/store/openStore.ts';
import { runCli } from '../helpers/cli.ts';
import { engineSql } from '../helpers/engineSql.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainq-copy-ledger-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('chainq copy and the usage ledger journal', () => {
  it('refuses while a crash has left charges in the journal, and copies nothing', async () => {
    await (await createStore({ dataDir: dir })).close();
    const charge = { keyId: 'k1', period: '2026-11', requestId: 'left-by-a-crash', cost: 100, admittedAt: Date.now(), chargedAt: Date.now(), endpoint: null };
    fs.writeFileSync(path.join(dir, JOURNAL_FILE), `${JSON.stringify(charge)}\n`);
    expect(unappliedJournalCharges(dir)).toBe(1);

    const target = path.join(dir, 'chdb-target');
    const r = await runCli(['copy', '--from', `duckdb:${dir}`, '--to', `chdb:${target}`]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('1 charges in its usage ledger journal');
    expect(r.stderr).toContain(`chainq status --data ${dir}`);
    expect(fs.existsSync(target)).toBe(false);
  });

  it('opening the store applies them', async () => {
    const r = await runCli(['status', '--data', dir]);
    expect(r.code).toBe(0);
    expect(unappliedJournalCharges(dir)).toBe(0);
    const store = await createStore({ dataDir: dir, readOnly: true });
    expect(await engineSql(store).all('SELECT request_id, cost::INTEGER AS cost FROM usage_charges')).toEqual([{ request_id: 'left-by-a-crash', cost: 100 }]);
    await store.close();
  });
});
