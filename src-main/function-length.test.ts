// The function-length check (scripts/check-function-length.mjs) on the real tree, and proof that
// it finds long functions in TypeScript and C++ by file and name.
import { describe, expect, it } from 'vitest';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
// @ts-expect-error: a plain ES module of the repository's scripts, without type declarations
import { ALLOWED, checkFunctionLength, longFunctions, sourceFiles } from '../scripts/check-function-length.mjs';

type Fn = { file: string; name: string; line: number; lines: number };
type Files = { path: string; source: string }[];
const long = longFunctions as (files: Files, max?: number) => Fn[];
const check = checkFunctionLength as (files: Files, allowed?: Record<string, string>, max?: number) => { offenders: Fn[]; stale: string[] };
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const body = (n: number) => Array.from({ length: n }, (_, i) => `  x += ${i};`).join('\n');

describe('function length', () => {
  it('no function in src-main or native/src is over 100 lines unless allowed with a reason', () => {
    const r = check((sourceFiles as (r: string) => Files)(root));
    expect(r.offenders.map((f) => `${f.file}: ${f.name} (${f.lines} lines)`)).toEqual([]);
    expect(r.stale).toEqual([]);
    for (const why of Object.values(ALLOWED as Record<string, string>)) expect(why.length).toBeGreaterThan(20);
  });

  it('names TypeScript functions, methods, arrows and callbacks by file and name', () => {
    const src = [
      `export function plan() {\n${body(4)}\n}`,
      `class Engine {\n  load() {\n${body(4)}\n  }\n  constructor() {\n${body(4)}\n  }\n}`,
      `const start = async () => {\n${body(4)}\n};`,
      `const o = { serve: function () {\n${body(4)}\n} };`,
      `it('works', () => {\n${body(4)}\n});`,
      `function short() { return 1; }`,
    ].join('\n');
    expect(long([{ path: 'src-main/a.ts', source: src }], 5).map((f) => [f.name, f.lines])).toEqual([
      ['plan', 6], ['Engine.load', 6], ['Engine.constructor', 6], ['start', 6], ['serve', 6], ["it('works') callback", 6],
    ]);
    expect(long([{ path: 'src-main/a.test.ts', source: src }], 5)).toEqual([]);
  });

  it('names C++ functions and members, not control blocks, classes or namespaces', () => {
    const src = [
      '#include <x.h>',
      'namespace ramforge {',
      `static int Free(int a) {\n${body(4)}\n}`,
      `void BatchServer::Loop() {\n  if (a) {\n${body(4)}\n  }\n}`,
      `struct Schedule {\n  bool Configure(const Args& a) const {\n${body(4)}\n  }\n};`,
      `Context::Context(int a) : a_(a), b_{1} {\n${body(4)}\n}`,
      `// int Commented() {\n/* void Block() { */`,
      `const char* s = "{ not a body (";`,
      `auto f = [](int x) {\n${body(4)}\n};`,
      '}  // namespace ramforge',
    ].join('\n');
    expect(long([{ path: 'native/src/a.cpp', source: src }], 5).map((f) => [f.name, f.line, f.lines])).toEqual([
      ['Free', 3, 6], ['BatchServer::Loop', 9, 8], ['Schedule::Configure', 18, 6], ['Context::Context', 25, 6],
    ]);
  });

  it('reports a long function not allowed, and an allowed one that is no longer long', () => {
    const files = [{ path: 'src-main/a.ts', source: `function big() {\n${body(8)}\n}\nfunction small() {}` }];
    expect(check(files, {}, 5).offenders.map((f) => f.name)).toEqual(['big']);
    expect(check(files, { 'src-main/a.ts: big': 'why' }, 5)).toEqual({ offenders: [], stale: [] });
    expect(check(files, { 'src-main/a.ts: big': 'why', 'src-main/a.ts: small': 'why' }, 5).stale).toEqual(['src-main/a.ts: small']);
  });
});
