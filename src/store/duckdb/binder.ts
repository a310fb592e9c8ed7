/**
 * Binds values while DuckDB SQL text is assembled by hand, for the lookups
 * that still write DuckDB SQL outside the store (see docs/storage.md): every
 * value goes through `bind`, never into the text.
 */
import type { SqlParams } from '../types.ts';

export class DuckDbBinder {
  readonly params: SqlParams = {};
  #n = 0;

  /** Binds a value and returns its placeholder. */
  bind(value: string | number | bigint | boolean | null): string {
    const name = `p${this.#n++}`;
    this.params[name] = value;
    return `$${name}`;
  }

  /** Binds each value; returns `(ph1, ph2, …)` for an IN list. */
  bindList(values: readonly (string | number)[]): string {
    return `(${values.map((v) => this.bind(v)).join(', ')})`;
  }
}
