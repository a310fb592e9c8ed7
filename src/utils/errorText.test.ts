import { describe, expect, it } from 'vitest';
import { errnoCode, messageOf } from './errorText.ts';

describe('errorText', () => {
  it('reads the message of an Error and spells any other thrown value as text', () => {
    expect(messageOf(new TypeError('bad'))).toBe('bad');
    expect(messageOf('plain')).toBe('plain');
    expect(messageOf(42)).toBe('42');
  });

  it('reads a string code of a system error and nothing else', () => {
    expect(errnoCode(Object.assign(new Error('x'), { code: 'ENOENT' }))).toBe('ENOENT');
    expect(errnoCode({ code: -32000 })).toBeUndefined();
    expect(errnoCode(new Error('x'))).toBeUndefined();
    expect(errnoCode(null)).toBeUndefined();
  });
});
