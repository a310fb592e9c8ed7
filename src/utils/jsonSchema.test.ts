import { describe, expect, it } from 'vitest';
import { compileSchema, describeSchemaError, fieldPath, parseWith } from './jsonSchema.ts';

const validate = compileSchema<{ jobs: { every: number }[] }>({
  type: 'object',
  required: ['jobs'],
  additionalProperties: false,
  properties: { jobs: { type: 'array', items: { type: 'object', required: ['every'], properties: { every: { type: 'number', exclusiveMinimum: 0 } } } } },
});
const fail = (value: unknown) => () => parseWith(validate, value, (e) => new Error(e ? describeSchemaError('config', e) : 'invalid'));

describe('jsonSchema', () => {
  it('hands back a value the schema accepts as it is', () => {
    const value = { jobs: [{ every: 10 }] };
    expect(parseWith(validate, value, () => new Error('unexpected'))).toBe(value);
  });

  it('names the bad field, list positions included', () => {
    expect(fail({ jobs: [{ every: 1 }, { every: 1 }, { every: -1 }] })).toThrow('config.jobs[2].every: must be > 0');
    expect(fail({ jobs: [{ every: 1 }, {}] })).toThrow('config.jobs[1].every: required');
    expect(fail({ jobs: [], job: [] })).toThrow('config.job: unknown field');
  });

  it('spells an instance path as the field a reader writes', () => {
    expect(fieldPath('jobs[0]', '/rpc/1')).toBe('jobs[0].rpc[1]');
    expect(fieldPath('job', '')).toBe('job');
  });
});
