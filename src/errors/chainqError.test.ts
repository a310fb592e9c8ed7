import { describe, expect, it } from 'vitest';
import { ChainChangedError, ChainqError, ConflictError, InvalidInputError, SourceError, StoreError } from './chainqError.ts';

describe('internal errors', () => {
  it('gives each kind its code and a subclass its own name, so that a caller tests the kind and a log names the class', () => {
    class DeclarationMistake extends InvalidInputError {}
    const e = new DeclarationMistake('bad');
    expect(e).toBeInstanceOf(ChainqError);
    expect(e).toBeInstanceOf(InvalidInputError);
    expect(e.code).toBe('invalid_input');
    expect(e.name).toBe('DeclarationMistake');
    expect(e.message).toBe('bad');
    expect([new ConflictError('x'), new SourceError('x'), new ChainChangedError('x'), new StoreError('x')].map((x) => x.code)).toEqual(['conflict', 'source', 'chain_changed', 'store']);
  });

  it('keeps the cause it is given', () => {
    const cause = new Error('socket hang up');
    expect(new SourceError('node failed', { cause }).cause).toBe(cause);
  });
});
