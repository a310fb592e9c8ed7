/**
 * The errors of the internal layers (ingestion, operator, configuration),
 * as ApiError is the API's: one base with a `code` saying what kind of
 * failure it is, so that a caller that must tell failures apart (the operator
 * channel answering 400 or 409, a retry loop, the CLI) tests one class
 * instead of a list of unrelated ones. Each layer keeps its own subclasses for
 * what only it knows (an RPC error's method, a job's conflict).
 */

export type ErrorCode =
  /** What an operator wrote is wrong: a config file, a declaration, a job description, an action's input. */
  | 'invalid_input'
  /** The request is well formed but clashes with what is running (a job already running on the same target). */
  | 'conflict'
  /** A node or data source failed, answered badly, or answered only in part. */
  | 'source'
  /** The chain changed under a run (the head moved between two calls, a reorganisation). */
  | 'chain_changed'
  /** The store cannot be opened or used as asked. */
  | 'store';

export class ChainqError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

export class InvalidInputError extends ChainqError {
  constructor(message: string, options?: ErrorOptions) {
    super('invalid_input', message, options);
  }
}

export class ConflictError extends ChainqError {
  constructor(message: string, options?: ErrorOptions) {
    super('conflict', message, options);
  }
}

export class SourceError extends ChainqError {
  constructor(message: string, options?: ErrorOptions) {
    super('source', message, options);
  }
}

export class ChainChangedError extends ChainqError {
  constructor(message: string, options?: ErrorOptions) {
    super('chain_changed', message, options);
  }
}

export class StoreError extends ChainqError {
  constructor(message: string, options?: ErrorOptions) {
    super('store', message, options);
  }
}
