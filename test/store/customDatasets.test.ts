/**
 * The custom dataset registry: declaring again keeps what still holds, drops
 * what no longer answers the declaration, and a reorg rolls custom tables back
 * like the built-in ones.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readCustomDeclaration } from '../../src/catalog/custom/customEndpoints.ts';
import { CustomDeclarationError } from '../../src/catalog/custom/declaration.ts';
import { rollbackAbove } from '../../src/ingest/evm/writeBatch.ts';
import { coveredIntervals } from '../../src/store/coverage.ts';
import { addCoverageMany } from '../../src/store/duckdb/coverageWrites.ts';
import type { Store } from '../../src/store/types.ts';
import { customTables, listCustomDatasets, saveCustomDataset } from '../../src/store/customDatasets.ts';
import { createTestStore } from '../helpers/testApp.ts';
import { engineSql } from '../helpers/engineSql.ts';

const A = '0x00000000000000000000000000000000000000aa';
const B = '0x00000000000000000000000000000000000000bb';
const declare = (networks: Record<string, { addresses: string[]; from_block?: number }>, abi = ['event Deposited(address indexed who, uint256 amount)']) =>
  readCustomDeclaration({ name: 'vault', abi, networks });
const DATASET = 'evm/custom/vault/deposited';

describe('custom dataset registry', () => {
  let store: Store;
  beforeEach(async () => {
    store = await createTestStore(null);
  });
  afterEach(async () => {
    await store.close();
  });

  const rows = async (network: string) => (await engineSql(store).all<{ n: bigint }>(`SELECT count(*) AS n FROM evm_custom_vault__deposited WHERE network = $network`, { network }))[0]!.n;
  const ingested = async (network: string, lo: number, hi: number) => {
    await engineSql(store).transaction(async (tx) => {
      for (let b = lo; b <= hi; b++) await tx.run(`INSERT INTO evm_custom_vault__deposited VALUES ($network, $b, 0, now()::TIMESTAMP, '0x01', $a, $a, 1)`, { network, b, a: A });
      await addCoverageMany(tx, [DATASET], network, lo, hi);
    });
  };

  it('saves a declaration with its table, and covers the blocks before from_block', async () => {
    await saveCustomDataset(store, declare({ ETH: { addresses: [A], from_block: 100 } }));
    expect((await listCustomDatasets(store)).map((d) => d.name)).toEqual(['vault']);
    expect(await coveredIntervals(store, DATASET, 'ETH')).toEqual([{ lo: 0, hi: 99 }]);
    expect([...(await customTables(store)).keys()]).toEqual([DATASET]);
  });

  it('keeps what was ingested when declared again unchanged or with a new network, and drops a network whose contracts changed', async () => {
    await saveCustomDataset(store, declare({ ETH: { addresses: [A], from_block: 100 }, BASE: { addresses: [A] } }));
    await ingested('ETH', 100, 110);
    await ingested('BASE', 0, 10);
    expect((await saveCustomDataset(store, declare({ ETH: { addresses: [A], from_block: 100 }, BASE: { addresses: [A] }, OP: { addresses: [B] } }))).reset).toEqual([]);
    expect(await rows('ETH')).toBe(11n);
    expect(await coveredIntervals(store, DATASET, 'ETH')).toEqual([{ lo: 0, hi: 110 }]);

    const saved = await saveCustomDataset(store, declare({ ETH: { addresses: [A, B], from_block: 100 }, BASE: { addresses: [A] } }));
    expect(saved.reset).toEqual(['ETH']);
    expect(await rows('ETH')).toBe(0n);
    expect(await coveredIntervals(store, DATASET, 'ETH')).toEqual([{ lo: 0, hi: 99 }]);
    expect(await rows('BASE')).toBe(11n);
  });

  it('refuses to change the inputs of an event already declared', async () => {
    await saveCustomDataset(store, declare({ ETH: { addresses: [A] } }));
    await expect(saveCustomDataset(store, declare({ ETH: { addresses: [A] } }, ['event Deposited(address indexed who, uint256 amount, bool extra)']))).rejects.toThrow(CustomDeclarationError);
    await expect(saveCustomDataset(store, declare({ ETH: { addresses: [A] } }, ['event Deposited(address indexed owner, uint256 amount)']))).rejects.toThrow(/inputs named who, amount/);
  });

  it('rolls custom rows and coverage back in a reorg', async () => {
    await saveCustomDataset(store, declare({ ETH: { addresses: [A] } }));
    await ingested('ETH', 0, 20);
    await rollbackAbove(store, 'ETH', 14);
    expect(await rows('ETH')).toBe(15n);
    expect(await coveredIntervals(store, DATASET, 'ETH')).toEqual([{ lo: 0, hi: 14 }]);
  });
});
