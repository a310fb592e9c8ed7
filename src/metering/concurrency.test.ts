import { describe, expect, it } from 'vitest';
import { createConcurrencyGate } from './concurrency.ts';

describe('createConcurrencyGate', () => {
  it('admits up to the limit per key, then refuses until a slot is left', () => {
    const gate = createConcurrencyGate();
    const a = gate.enter('k', 2);
    const b = gate.enter('k', 2);
    expect(a).not.toBeNull();
    expect(b).not.toBeNull();
    expect(gate.enter('k', 2)).toBeNull();
    // Another key has its own count.
    expect(gate.enter('other', 2)).not.toBeNull();
    a!();
    a!(); // leaving twice frees one slot, not two
    expect(gate.inFlight('k')).toBe(1);
    expect(gate.enter('k', 2)).not.toBeNull();
    expect(gate.enter('k', 2)).toBeNull();
  });

  it('counts without limiting when the plan has none', () => {
    const gate = createConcurrencyGate();
    for (let i = 0; i < 100; i++) expect(gate.enter('k', null)).not.toBeNull();
    expect(gate.inFlight('k')).toBe(100);
  });
});
