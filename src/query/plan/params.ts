/**
 * Collects bound parameters while a query description is built, so that no
 * user value ever becomes part of the query's text: every value goes through
 * `bind` and is referred to by name.
 */
import type { BoundParam, Expr, ParamType, ParamValue } from '../../store/query.ts';

export class ParamBinder {
  readonly params: Record<string, BoundParam> = {};
  #n = 0;

  /** Binds a value; its type follows the JS value unless given. */
  bind(value: ParamValue, type: ParamType = typeOf(value)): Expr {
    const name = `p${this.#n++}`;
    this.params[name] = { value, type };
    return { kind: 'param', name };
  }

  /** Binds each value, for an IN list. */
  bindList(values: readonly (string | number)[]): Expr[] {
    return values.map((v) => this.bind(v));
  }
}

function typeOf(value: ParamValue): ParamType {
  switch (typeof value) {
    case 'boolean':
      return 'boolean';
    case 'bigint':
      return 'int64';
    case 'number':
      return Number.isInteger(value) ? 'int64' : 'float64';
    default:
      return 'string';
  }
}

/** A stored column of the dataset table. */
export const column = (name: string): Expr => ({ kind: 'column', name });

/** An integer constant of the planner (never a request value). */
export const integer = (value: number): Expr => ({ kind: 'literal', value, type: 'integer' });
