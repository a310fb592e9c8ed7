/**
 * Which EVM datasets one ingestion run fills on a network: the catalog's
 * endpoints that list the network, minus the protocols left out with
 * `--only`, minus those whose contracts are not configured there. Only the
 * datasets planned here get coverage; the others stay honestly missing.
 */
import { customEndpoints } from '../../catalog/custom/customEndpoints.ts';
import type { CustomDataset } from '../../catalog/custom/declaration.ts';
import { chainEndpoints } from '../../catalog/index.ts';
import type { TableDef } from '../../catalog/types.ts';
import type { DexFactory, Protocols } from '../../reference/protocols.ts';
import { createAbiDecoder } from './decoders/abi.ts';
import { createDexDecoder } from './decoders/dex_v3.ts';
import { createErc20Decoder } from './decoders/erc20.ts';
import { createLendingDecoder } from './decoders/lending_v3.ts';
import { NATIVE_DATASET } from './decoders/native.ts';
import { createStakingDecoder } from './decoders/staking.ts';
import { EVM_PROTOCOLS, type EvmProtocol } from './evmProtocols.ts';
import type { EngineDecoder, JsDecoder, ProtocolDecoder } from './types.ts';

export interface DatasetPlan {
  readonly network: string;
  /** Dataset ids this run fills and records coverage for. */
  readonly datasets: readonly string[];
  /** The table of each planned dataset. */
  readonly tables: ReadonlyMap<string, TableDef>;
  readonly decoders: readonly ProtocolDecoder[];
  /** The decoders that read logs as JS objects, and those whose rows the engine computes. */
  readonly jsDecoders: readonly JsDecoder[];
  readonly engineDecoders: readonly EngineDecoder[];
  readonly native: boolean;
  readonly dexFactory: DexFactory | undefined;
  /** Catalog datasets of the network this run does not fill, and why. */
  readonly skipped: readonly { readonly dataset: string; readonly reason: string }[];
}

/**
 * `custom`: operator-defined datasets (docs/custom-datasets.md), planned on
 * the networks they declare whatever `only` says.
 */
export function planDatasets(network: string, protocols: Protocols, only?: readonly EvmProtocol[], custom: readonly CustomDataset[] = []): DatasetPlan {
  const onNetwork = chainEndpoints.filter((e) => e.family === 'evm' && e.networks.includes(network));
  const ids = (protocol: string) => onNetwork.filter((e) => e.protocol === protocol).map((e) => e.id);
  const datasets: string[] = [];
  const decoders: ProtocolDecoder[] = [];
  const skipped: { dataset: string; reason: string }[] = [];
  const wanted = (p: EvmProtocol) => !only || only.includes(p);
  const skip = (list: readonly string[], reason: string) => { for (const dataset of list) skipped.push({ dataset, reason }); };

  for (const protocol of EVM_PROTOCOLS) {
    const list = ids(protocol);
    if (list.length === 0) continue;
    if (!wanted(protocol)) { skip(list, 'left out with --only'); continue; }
    switch (protocol) {
      case 'erc20':
        datasets.push(...list);
        decoders.push(createErc20Decoder());
        break;
      case 'native':
        datasets.push(NATIVE_DATASET);
        break;
      case 'lending_v3': {
        const markets = protocols.lending_v3[network] ?? [];
        if (markets.length === 0) { skip(list, `no lending_v3 pool configured for ${network}`); break; }
        datasets.push(...list);
        decoders.push(createLendingDecoder(markets));
        break;
      }
      case 'dex_v3': {
        const factory = protocols.dex_v3[network];
        if (!factory) { skip(list, `no dex_v3 factory configured for ${network}`); break; }
        datasets.push(...list);
        decoders.push(createDexDecoder(factory.factory));
        break;
      }
      case 'staking': {
        const c = protocols.staking[network] ?? {};
        const have = list.filter((id) => {
          if (id.endsWith('/deposit')) return !!c.steth;
          if (id.endsWith('/withdrawal_request') || id.endsWith('/withdrawal_claimed')) return !!c.withdrawal_queue;
          return !!c.l2_token_bridge; // l2_deposit, l2_withdrawal_request
        });
        skip(list.filter((id) => !have.includes(id)), `its staking contract is not configured for ${network}`);
        if (have.length === 0) break;
        datasets.push(...have);
        decoders.push(createStakingDecoder({ network, contracts: c, datasets: have }));
        break;
      }
    }
  }
  const tables = new Map(onNetwork.filter((e) => datasets.includes(e.id)).map((e) => [e.id, e.table]));
  for (const d of custom) {
    if (!d.networks[network]) continue;
    for (const e of customEndpoints(d)) {
      datasets.push(e.id);
      tables.set(e.id, e.table);
    }
    decoders.push(createAbiDecoder(d, network));
  }
  return {
    network,
    datasets,
    tables,
    decoders,
    jsDecoders: decoders.filter((d): d is JsDecoder => d.engine === undefined),
    engineDecoders: decoders.filter((d): d is EngineDecoder => d.engine !== undefined),
    native: datasets.includes(NATIVE_DATASET),
    dexFactory: datasets.some((d) => d.startsWith('evm/dex_v3/')) ? protocols.dex_v3[network] : undefined,
    skipped,
  };
}
