/** How the usage ledger's charges reach the DuckDB table (../journalLedger.ts makes them durable first). */
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { listValue } from './nodeApi.ts';
import type { ApplyCharges } from '../journalLedger.ts';

/**
 * Charges into `usage_charges` as one INSERT the engine runs from column
 * lists, on a connection kept for the ledger (its applies run one at a
 * time): one statement is one transaction, and nothing runs on the event
 * loop, where an appender's flush and a connection's close are synchronous.
 * With `skipKnown`, charges whose request id the table holds are left out.
 */
export function createChargeApplier(instance: DuckDBInstance): { readonly apply: ApplyCharges; close(): void } {
  let ledgerConn: DuckDBConnection | undefined;
  const apply: ApplyCharges = async (charges, skipKnown) => {
    if (charges.length === 0) return;
    ledgerConn ??= await instance.connect();
    await ledgerConn.run(
      `INSERT INTO usage_charges (key_id, period, request_id, cost, admitted_at, charged_at, endpoint)
       SELECT key_id, period, request_id, cost::BIGINT, epoch_ms(admitted_ms::BIGINT), epoch_ms(charged_ms::BIGINT), endpoint
       FROM (SELECT unnest($keys) AS key_id, unnest($periods) AS period, unnest($ids) AS request_id, unnest($costs) AS cost,
                    unnest($admitted) AS admitted_ms, unnest($charged) AS charged_ms, unnest($endpoints) AS endpoint)
       WHERE NOT $skip_known OR request_id NOT IN (SELECT request_id FROM usage_charges)`,
      {
        keys: listValue(charges.map((c) => c.keyId)),
        periods: listValue(charges.map((c) => c.period)),
        ids: listValue(charges.map((c) => c.requestId)),
        // Numbers would bind as INTEGER lists; BigInts bind as HUGEINT, cast back above.
        costs: listValue(charges.map((c) => BigInt(c.cost))),
        admitted: listValue(charges.map((c) => BigInt(c.admittedAt))),
        charged: listValue(charges.map((c) => BigInt(c.chargedAt))),
        endpoints: listValue(charges.map((c) => c.endpoint)),
        skip_known: skipKnown,
      },
    );
  };
  return {
    apply,
    close: () => ledgerConn?.closeSync(),
  };
}
