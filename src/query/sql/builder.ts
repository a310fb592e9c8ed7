/**
 * Collects bound parameters while SQL text is assembled, so that no user value
 * is ever spliced into the text: every value goes through `bind`.
 */
import type { SqlParams } from '../../store/createStore.ts';

export class SqlBuilder {
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

/** Quotes an identifier that comes from the catalog (never from a request). */
export const ident = (name: string): string => `"${name.replaceAll('"', '""')}"`;
