/**
 * What the CLI reads from a running server over the operator channel, and
 * from the file the server writes beside the store, as schemas: a file left
 * by another version or a message cut short is refused with the field it
 * lacks, not used half-read. A job's events and reports inside a message are
 * the server's own objects, checked as objects only.
 */
import { compileSchema, type Validator } from '../utils/jsonSchema.ts';
import type { ActionInput, ActionName, ActionOutput } from './actions.ts';
import type { JobStatus } from './jobManager.ts';
import type { JobMessage } from './runJob.ts';

const str = { type: 'string' } as const;
const int = { type: 'integer' } as const;
const obj = { type: 'object' } as const;
const nullable = (schema: object) => ({ anyOf: [schema, { type: 'null' }] });
const kind = (type: string, properties: Record<string, object>, required: string[]) => ({
  type: 'object',
  required: ['type', ...required],
  properties: { type: { const: type }, ...properties },
});

/** Written by the server beside the store: who holds it, and where its socket is. */
export interface OperatorInfo {
  readonly pid: number;
  readonly socket: string;
  readonly startedAt: string;
}

export const validateOperatorInfo = compileSchema<OperatorInfo>({
  type: 'object',
  required: ['pid', 'socket', 'startedAt'],
  properties: { pid: int, socket: str, startedAt: str },
});

/** An error answer of the channel: `{status: 'error', error}`. */
export const validateErrorBody = compileSchema<{ readonly error: string }>({ type: 'object', required: ['error'], properties: { error: str } });

const jobStatus = {
  type: 'object',
  required: ['id', 'name', 'label', 'source', 'supervised', 'state', 'attempts', 'startedAt', 'endedAt', 'lastError', 'nextRetryAt'],
  properties: {
    id: str,
    name: nullable(str),
    label: str,
    source: str,
    supervised: { type: 'boolean' },
    state: { enum: ['running', 'retrying', 'done', 'failed', 'stopped'] },
    attempts: int,
    startedAt: str,
    endedAt: nullable(str),
    lastError: nullable({ type: 'object', required: ['message', 'at'], properties: { message: str, at: str } }),
    nextRetryAt: nullable(str),
  },
};

export const validateJobStatus = compileSchema<JobStatus>(jobStatus);
export const validateJobStatuses = compileSchema<JobStatus[]>({ type: 'array', items: jobStatus });

const progress = {
  type: 'object',
  required: ['type', 'call'],
  properties: { type: { const: 'progress' } },
  oneOf: [
    { required: ['label', 'total'], properties: { call: { const: 'start' }, label: str, total: { type: 'number' } } },
    { required: ['n', 'unit'], properties: { call: { const: 'advance' }, n: { type: 'number' }, unit: str } },
    { required: ['message'], properties: { call: { const: 'note' }, message: str } },
    { properties: { call: { const: 'stop' } } },
  ],
};

export const validateJobMessage = compileSchema<JobMessage>({
  anyOf: [
    kind('accepted', { id: str, label: str }, ['id', 'label']),
    kind('evm', { event: obj }, ['event']),
    kind('verify', { event: obj }, ['event']),
    kind('verified', { report: obj }, ['report']),
    progress,
    kind('done', { result: obj, interrupted: { type: 'boolean' } }, ['result', 'interrupted']),
    kind('failed', { message: str, interrupted: { type: 'boolean' } }, ['message']),
  ],
});

/** Each operator action's input, as the server checks it before running the action. */
const INPUTS: Record<ActionName, object> = {
  'keys.create': { type: 'object', required: ['plan'], properties: { plan: str, name: str } },
  'keys.list': {},
  'keys.revoke': { type: 'object', required: ['idOrPrefix'], properties: { idOrPrefix: str } },
  'keys.set-plan': { type: 'object', required: ['idOrPrefix', 'plan'], properties: { idOrPrefix: str, plan: str } },
  'keys.usage': { type: 'object', properties: { idOrPrefix: str, month: str, allMonths: { type: 'boolean' } } },
  status: {},
  exports: {},
  verifications: {},
  compact: {},
  'tokens.import': { type: 'object', required: ['csv'], properties: { csv: str } },
  'labels.import': { type: 'object', required: ['csv'], properties: { csv: str } },
  demo: { type: 'object', properties: { scale: { type: 'number', exclusiveMinimum: 0 }, days: { type: 'number', exclusiveMinimum: 0 } } },
  'plans.reload': {},
};

/**
 * Each action's answer: an object or a list of the server's own making
 * (runAction), checked for its kind only.
 */
const OUTPUTS: Record<ActionName, object> = {
  'keys.create': obj,
  'keys.list': { type: 'array' },
  'keys.revoke': obj,
  'keys.set-plan': obj,
  'keys.usage': { type: 'array' },
  status: { type: 'array' },
  exports: obj,
  verifications: { type: 'array' },
  compact: obj,
  'tokens.import': obj,
  'labels.import': obj,
  demo: obj,
  'plans.reload': obj,
};

/** Compiled once per schema: ajv keeps what it compiled by the schema object. */
export const actionInput = <N extends ActionName>(name: N): Validator<ActionInput<N>> => compileSchema<ActionInput<N>>(INPUTS[name]);
export const actionOutput = <N extends ActionName>(name: N): Validator<ActionOutput<N>> => compileSchema<ActionOutput<N>>(OUTPUTS[name]);
