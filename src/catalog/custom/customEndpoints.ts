/**
 * The catalog entries of an operator-defined dataset: one EVM event endpoint
 * per declared event, built from the same pieces as the built-in protocols,
 * so routes, validation, cost, planning and encoding treat it like any other.
 */
import { CHAIN_FORMATS, EVM_LOG_ORDER, blockNumberColumn, evmLogKey, evmVerboseColumns, stored, timeColumn } from '../common.ts';
import type { ChainEndpoint, FilterDef, OutputColumn, ParamDef } from '../types.ts';
import { dataRoutes } from '../derive/routes.ts';
import { customDatasetId, customTableName, parseCustomDataset, type CustomDataset, type CustomEvent, type CustomInput } from './declaration.ts';

/** The path under which custom datasets are served; `GET` on it lists them. */
export const CUSTOM_BASE_PATH = '/v1/evm/custom';

export const customEventPath = (name: string, event: string): string => `${CUSTOM_BASE_PATH}/${name}/events/${event}`;

const DESCRIPTIONS: Readonly<Record<CustomInput['kind'], string>> = {
  address: 'address, lowercase hex',
  bool: 'bool',
  string: 'string',
  bytes: 'bytes, 0x hex',
  int: 'integer',
  wide_int: 'integer as decimal text (exact to 256 bits)',
  topic_hash: 'indexed dynamic value: its keccak256 hash, 0x hex',
  json: 'JSON text',
};

function outputColumn(input: CustomInput): OutputColumn {
  const description = `${input.abiType} ${input.name}${input.indexed ? ' (indexed)' : ''}: ${DESCRIPTIONS[input.kind]}.`;
  return input.kind === 'wide_int' ? { name: input.name, type: 'string', expr: { kind: 'decimal_text', arg: stored(input.name) }, description } : { name: input.name, type: input.output, description };
}

const contractParam: ParamDef = { type: 'string', list: true, description: 'Contract address that emitted the event; several, comma-separated, mean any of them.' };

function customEndpoint(d: CustomDataset, e: CustomEvent): ChainEndpoint {
  const addressInputs = e.inputs.filter((i) => i.kind === 'address');
  return {
    id: customDatasetId(d.name, e.event),
    path: customEventPath(d.name, e.event),
    family: 'evm',
    protocol: `custom/${d.name}`,
    event: e.event,
    eventName: e.abi.name,
    summary: `${e.signature} events of the ${d.name} contracts (operator-defined).`,
    networks: Object.keys(d.networks),
    table: {
      name: customTableName(d.name, e.event),
      columns: [...evmLogKey, { name: 'contract_address', type: 'string' }, ...e.inputs.map((i) => ({ name: i.name, type: i.stored }))],
      orderBy: EVM_LOG_ORDER,
    },
    params: {
      contract: contractParam,
      ...Object.fromEntries(
        addressInputs.map((i) => [i.name, { type: 'string', list: true, description: `Rows whose ${i.name} is this address; several, comma-separated, mean any of them.` } satisfies ParamDef]),
      ),
    },
    filters: {
      contract: { kind: 'address', columns: ['contract_address'] },
      ...Object.fromEntries(addressInputs.map((i) => [i.name, { kind: 'address', columns: [i.name] } satisfies FilterDef])),
    },
    columns: [blockNumberColumn, ...e.inputs.map(outputColumn), timeColumn],
    verboseColumns: [...evmVerboseColumns(e.abi.name), { name: 'contract_address', type: 'string', description: 'Contract that emitted the event.' }],
    formats: CHAIN_FORMATS,
    defaultFormat: 'json',
    cost: { kind: 'blocks' },
    served: true,
  };
}

/** One endpoint per declared event, in declaration order. */
export function customEndpoints(d: CustomDataset): ChainEndpoint[] {
  return d.events.map((e) => customEndpoint(d, e));
}

/** Parameters every custom route has, whatever its events: an address input may not take one of their names. */
function commonParams(): string[] {
  const probe: CustomDataset = {
    name: 'probe',
    events: [{ event: 'probe', abi: { type: 'event', name: 'Probe', inputs: [] }, signature: 'Probe()', inputs: [] }],
    networks: { ETH: { addresses: [], fromBlock: 0 } },
  };
  return dataRoutes(customEndpoints(probe)).flatMap((r) => Object.keys(r.params));
}

/** A declaration file's content, checked (declaration.ts) against the parameters of the routes it will get. */
export function readCustomDeclaration(json: unknown): CustomDataset {
  return parseCustomDataset(json, commonParams());
}
