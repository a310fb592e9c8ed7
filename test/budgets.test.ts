/**
 * Budgets of src/ (tests excluded), counted with the TypeScript compiler so
 * that strings and comments do not count: type assertions (`as`, except
 * `as const`), non-null assertions (`!`) and long functions. Each one is a
 * place where the compiler is told to trust the code instead of checking it,
 * or a function too long to read at once. Values read from outside are
 * parsed into their types at the edge rather than cast.
 *
 * The targets are the TARGET_* constants; the counts are within them and the
 * test holds them there.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../src');

/** The goals. */
const TARGET_AS = 100;
const TARGET_NON_NULL = 80;
const TARGET_FUNCTION_LINES = 120;

/** Code written by a generator: its length is the generator's business. */
const GENERATED = /\.generated\.ts$/;

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sourceFiles(p) : p.endsWith('.ts') && !p.endsWith('.test.ts') ? [p] : [];
  });
}

/** The name a function is known by: its own, or the variable, property or method it is assigned to. */
function functionName(node: ts.FunctionLikeDeclaration): string {
  if (node.name && ts.isIdentifier(node.name)) return node.name.text;
  const parent = node.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) && ts.isIdentifier(parent.name)) return parent.name.text;
  return '(anonymous)';
}

interface Counts {
  readonly as: string[];
  readonly nonNull: string[];
  /** `file#name` → lines. */
  readonly long: Map<string, number>;
}

function count(): Counts {
  const counts: Counts = { as: [], nonNull: [], long: new Map() };
  for (const file of sourceFiles(SRC)) {
    const rel = path.relative(SRC, file).split(path.sep).join('/');
    const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
    const where = (node: ts.Node) => `${rel}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
    const visit = (node: ts.Node): void => {
      if ((ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) && !(ts.isTypeReferenceNode(node.type) && node.type.getText() === 'const')) counts.as.push(where(node));
      if (ts.isNonNullExpression(node)) counts.nonNull.push(where(node));
      if (ts.isFunctionLike(node) && 'body' in node && node.body && !GENERATED.test(rel)) {
        const lines = source.getLineAndCharacterOfPosition(node.end).line - source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
        if (lines > TARGET_FUNCTION_LINES) counts.long.set(`${rel}#${functionName(node)}`, lines);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return counts;
}

describe('budgets of src/', () => {
  const counts = count();
  /** Where the count is, file by file, most first: the message of a failed budget. */
  const byFile = (places: readonly string[]) => {
    const n = new Map<string, number>();
    for (const place of places) {
      const file = place.split(':')[0] ?? place;
      n.set(file, (n.get(file) ?? 0) + 1);
    }
    return [...n]
      .sort((a, b) => b[1] - a[1])
      .map(([file, k]) => `${k} ${file}`)
      .join('\n');
  };

  it(`uses no more type assertions (\`as\`, except \`as const\`) than ${TARGET_AS}`, () => {
    expect(counts.as.length, `as: ${counts.as.length} (target ${TARGET_AS})\n${byFile(counts.as)}`).toBeLessThanOrEqual(TARGET_AS);
  });

  it(`uses no more non-null assertions (\`!\`) than ${TARGET_NON_NULL}`, () => {
    expect(counts.nonNull.length, `non-null: ${counts.nonNull.length} (target ${TARGET_NON_NULL})\n${byFile(counts.nonNull)}`).toBeLessThanOrEqual(TARGET_NON_NULL);
  });

  it(`has no function over ${TARGET_FUNCTION_LINES} lines`, () => {
    expect([...counts.long].map(([name, lines]) => `${name}: ${lines} lines`)).toEqual([]);
  });
});
