/**
 * DuckDB's Node API, loaded with `require`. The package is CommonJS; imported
 * from an ES module, Node first parses its entry and every file that entry
 * re-exports to find their export names (cjs-module-lexer), which cost about
 * 0.14 s of CPU at each start of the command, measured against `require`.
 * Types are imported as usual (`import type`), which costs nothing at run time.
 */
import { createRequire } from 'node:module';

type NodeApi = typeof import('@duckdb/node-api');

const api: NodeApi = createRequire(import.meta.url)('@duckdb/node-api');

export const { DuckDBInstance, DuckDBTimestampValue, DuckDBTypeId, listValue } = api;
