// The built renderer (out/renderer) must contain no Node built-ins: it runs sandboxed in
// Electron and as a plain web page in browser mode.
import { describe, it, expect } from 'vitest';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../node/paths.js';
import { findNodeBuiltins } from './node-builtins.js';

const dir = join(packageRoot(), 'out', 'renderer');
const built = existsSync(join(dir, 'index.html'));
if (!built && process.env.CI !== 'true') {
  process.stdout.write(`renderer-bundle.test: SKIPPED — ${dir} is not built (run: npm run build:app)\n`);
}

function files(d: string): string[] {
  return readdirSync(d).flatMap((n) => {
    const p = join(d, n);
    return statSync(p).isDirectory() ? files(p) : [p];
  });
}

describe('Node built-in detector', () => {
  it('finds the forms a bundler emits', () => {
    expect(findNodeBuiltins('const f=require("fs");')).toHaveLength(1);
    expect(findNodeBuiltins("import {x} from 'node:path';")).toHaveLength(1);
    expect(findNodeBuiltins('await import("child_process")')).toHaveLength(1);
    expect(findNodeBuiltins('require("electron")')).toHaveLength(1);
    expect(findNodeBuiltins('require("fs/promises")')).toHaveLength(1);
    expect(findNodeBuiltins('process.binding("fs")')).toHaveLength(1);
  });
  it('ignores doc comments but not code after them', () => {
    expect(findNodeBuiltins("/**\n * const f = await import('node:vm')\n */\nfoo();")).toEqual([]);
    expect(findNodeBuiltins("// require('fs')\nconst x = 1; require('fs');")).toHaveLength(1);
  });
  it('does not flag ordinary browser code', () => {
    expect(findNodeBuiltins('const fs = "fs"; fetch("/upload"); const path = a.path; import("./chunk.js")')).toEqual([]);
  });
});

describe.skipIf(!built && process.env.CI !== 'true')('built renderer bundle', () => {
  it('exists (npm test builds it first)', () => {
    expect(built, `${dir}/index.html`).toBe(true);
  });
  it('has no Node built-ins in any script', () => {
    const scripts = built ? files(dir).filter((f) => /\.(m?js|html)$/.test(f)) : [];
    expect(scripts.length).toBeGreaterThan(0);
    const hits = scripts.flatMap((f) => findNodeBuiltins(readFileSync(f, 'utf8')).map((h) => `${f}: ${h}`));
    expect(hits).toEqual([]);
  });
});
