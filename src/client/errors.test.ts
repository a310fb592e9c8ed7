/** The client's errors come from the server's own list of codes, and the client stays free of server code. */
import fs from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { API_ERRORS, ApiError, type ApiErrorCode } from '../errors/apiError.ts';
import { ChainqError, CostOverLimitError, errorFrom, InvalidRequestError, RateLimitedError, type ErrorCode } from './errors.ts';

describe('client errors', () => {
  it('know exactly the error codes the server answers', () => {
    expectTypeOf<ErrorCode>().toEqualTypeOf<ApiErrorCode>();
  });

  it('turn every error the server can answer into a typed error with its status and code', () => {
    for (const code of Object.keys(API_ERRORS) as ApiErrorCode[]) {
      const err = new ApiError(code, `a ${code}`);
      const e = errorFrom(err.status, JSON.stringify(err.toBody()), new Headers({ 'x-request-id': 'r1' }));
      expect(e, code).toBeInstanceOf(ChainqError);
      expect([e.status, e.code, e.requestId]).toEqual([API_ERRORS[code], code, 'r1']);
      if (err.status === 400) expect(e, code).toBeInstanceOf(code === 'cost_over_limit' ? CostOverLimitError : InvalidRequestError);
      if (err.status === 429) expect(e, code).toBeInstanceOf(RateLimitedError);
    }
  });

  it('import nothing at run time beyond Node built-ins, the client itself and its SSE parser (chainq/client needs no server code)', () => {
    const pkg = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { exports: Record<string, string> };
    const entry = path.resolve(import.meta.dirname, '../..', pkg.exports['./client']!);
    const builtins = new Set(builtinModules);
    // The one package the client uses, a dependency of its own: streams are read with a maintained SSE parser.
    const clientPackages = new Set(['eventsource-parser']);
    const seen = new Set<string>();
    const outside: string[] = [];
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const code = fs.readFileSync(file, 'utf8');
      // Value imports and re-exports only: `import type` and `export type` vanish when compiled.
      for (const m of code.matchAll(/^\s*(import|export)\s+(?!type\b)[^'";]*?from\s+['"]([^'"]+)['"]/gm)) {
        const spec = m[2]!;
        if (spec.startsWith('.')) visit(path.resolve(path.dirname(file), spec));
        else if (!spec.startsWith('node:') && !builtins.has(spec) && !clientPackages.has(spec)) outside.push(`${path.relative(process.cwd(), file)} imports ${spec}`);
      }
    };
    visit(entry);
    expect(seen.size).toBeGreaterThan(1);
    expect(outside).toEqual([]);
  });
});
