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
import { protocolRegistry, type ProtocolRegistry } from '../../protocols/index.ts';
import type { BlockDecoder, EngineDecoder, JsDecoder, PoolDiscovery, ProtocolDecoder, SkippedDataset } from '../../protocols/types.ts';
import type { Protocols } from '../../reference/protocols.ts';
import { createAbiDecoders } from './decoders/abi.ts';

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
  /** The planned protocols that read blocks rather than logs (native transfers): what each batch fetches beside logs. */
  readonly blockDecoders: readonly BlockDecoder[];
  /** Some planned protocol reads every block's transactions or traces: batches are kept smaller. */
  readonly native: boolean;
  /** The decoder whose pools are discovered from their factory's logs ahead of the main pass, if one is planned. */
  readonly poolDiscovery: { readonly decoder: JsDecoder; readonly discovery: PoolDiscovery } | undefined;
  /** Catalog datasets of the network this run does not fill, and why. */
  readonly skipped: readonly SkippedDataset[];
}

/**
 * `custom`: operator-defined datasets (docs/custom-datasets.md), planned on
 * the networks they declare whatever `only` says.
 */
export function planDatasets(network: string, protocols: Protocols, only?: readonly string[], custom: readonly CustomDataset[] = [], registry: ProtocolRegistry = protocolRegistry): DatasetPlan {
  const onNetwork = chainEndpoints.filter((e) => e.family === 'evm' && e.networks.includes(network));
  const datasets: string[] = [];
  const decoders: ProtocolDecoder[] = [];
  const blockDecoders: BlockDecoder[] = [];
  const skipped: SkippedDataset[] = [];

  for (const protocol of registry.protocols) {
    const endpoints = onNetwork.filter((e) => e.protocol === protocol.name);
    if (endpoints.length === 0) continue;
    if (only && !only.includes(protocol.name)) {
      skipped.push(...endpoints.map((e) => ({ dataset: e.id, reason: 'left out with --only' })));
      continue;
    }
    const p = protocol.plan(network, endpoints, protocols[protocol.name]?.[network]);
    datasets.push(...p.datasets);
    skipped.push(...p.skipped);
    if (p.decoder) decoders.push(p.decoder);
    if (p.blockDecoder) blockDecoders.push(p.blockDecoder);
  }
  const tables = new Map(onNetwork.filter((e) => datasets.includes(e.id)).map((e) => [e.id, e.table]));
  for (const d of custom) {
    if (!d.networks[network]) continue;
    for (const e of customEndpoints(d)) {
      datasets.push(e.id);
      tables.set(e.id, e.table);
    }
    decoders.push(...createAbiDecoders(d, network));
  }
  const jsDecoders = decoders.filter((d): d is JsDecoder => d.engine === undefined);
  const discovering = jsDecoders.find((d) => d.discovery !== undefined);
  return {
    network,
    datasets,
    tables,
    decoders,
    jsDecoders,
    engineDecoders: decoders.filter((d): d is EngineDecoder => d.engine !== undefined),
    blockDecoders,
    native: blockDecoders.length > 0,
    poolDiscovery: discovering?.discovery ? { decoder: discovering, discovery: discovering.discovery } : undefined,
    skipped,
  };
}
