/**
 * How every store command runs: sent to the server that holds the store
 * (over its operator channel) when one is running, else in this process on
 * the store itself. Either way the action's JSON result comes back, so the
 * command prints the same thing.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { MeterBackend } from '../metering/backend.ts';
import { runAction, type ActionInput, type ActionName, type ActionOutput } from '../operator/actions.ts';
import { findServer, type OperatorClient } from '../operator/channel.ts';
import { unappliedJournalCharges } from '../store/openStore.ts';
import { backendOf, plansOf, type MeteringCliOptions } from './metering.ts';
import { storeTargetOf, withStore } from './options.ts';

/**
 * Actions that only read: without a server they open the store read-only, so
 * they can run beside read-only (--redis) servers; unless a killed server left
 * charges in the usage ledger's journal, which only a writable opening applies
 * (src/store/journalLedger.ts): `keys usage` must count them.
 */
const READS: ReadonlySet<ActionName> = new Set(['keys.list', 'keys.usage', 'status', 'verifications', 'exports']);

const storeExists = (data: string) => fs.existsSync(path.join(path.resolve(data), 'chainq.duckdb'));

/** The server holding the store of `--data`, if one is running. */
export function runningServer(data: string): Promise<OperatorClient | null> {
  return findServer(path.resolve(data));
}

export async function operate<N extends ActionName>(opts: MeteringCliOptions, name: N, input: ActionInput<N>): Promise<ActionOutput<N>> {
  const server = await runningServer(opts.data);
  if (server) return server.action(name, input);
  const readOnly = READS.has(name) && storeTargetOf(opts).engine === 'duckdb' && storeExists(opts.data) && unappliedJournalCharges(path.resolve(opts.data)) === 0;
  return withStore({ data: opts.data, store: opts.store, readOnly }, async (store): Promise<ActionOutput<N>> => {
    const opened: { backend?: MeterBackend } = {};
    try {
      return await runAction(
        {
          store,
          plans: () => plansOf(opts),
          meterBackend: async () => (opened.backend ??= await backendOf(opts, store)),
        },
        name,
        input,
      );
    } finally {
      await opened.backend?.close();
    }
  });
}
