#!/usr/bin/env node
// The layering of the code base, as a check instead of a convention. Every source file belongs
// to a layer; a layer may import only the layers listed for it. Pure logic (src-main/shared)
// imports no Node built-in, no Electron, no React; the renderer imports only src-main/shared and
// itself; nothing imports a layer above its own. Test files may also import test helpers.
//
// Test code follows one convention: tests are `*.test.ts(x)`, their helpers `*.test-util.ts(x)`
// beside the tests that use them most, and programs or data files that tests run or read live
// in a `fixtures/` folder. Production code imports none of them; a file named after another
// scheme (test-support, testdata, testing, test-helpers, test-fixtures) is reported.
//
//   node scripts/check-layers.mjs        prints each violation (file: import — why), exit 1 if any
//
// `checkLayers(files)` is pure: tests feed it deliberately wrong imports.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, posix, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Layer → the layers its files may import (besides itself). Order: lowest first. */
export const LAYERS = {
  'src-main/shared': [],
  'src-main/node': ['src-main/shared'],
  'src-main/native': ['src-main/shared', 'src-main/node'],
  'src-main/supervisor': ['src-main/shared', 'src-main/node'],
  'src-main/synth': ['src-main/shared', 'src-main/node'],
  'src-main/worker': ['src-main/shared', 'src-main/node', 'src-main/native', 'src-main/supervisor', 'src-main/synth'],
  // The OpenAI-compatible HTTP API: its own validation and shaping, a backend interface the app implements.
  'src-main/api': ['src-main/shared', 'src-main/node'],
  'src-main/app': ['src-main/shared', 'src-main/node', 'src-main/supervisor', 'src-main/worker', 'src-main/api'],
  'src-main/server': ['src-main/shared', 'src-main/node', 'src-main/app'],
  'src-main/cli': ['src-main/shared', 'src-main/node', 'src-main/supervisor', 'src-main/synth', 'src-main/worker', 'src-main/app', 'src-main/server', 'src-main/api'],
  'src-main/electron': ['src-main/shared', 'src-main/node', 'src-main/worker', 'src-main/app', 'src-main/server', 'src-main/api'],
  'src-preload': ['src-main/shared'],
  'src-renderer': ['src-main/shared'],
  // The renderer against a mock API, for screenshots without a backend (and the API list's test):
  // it starts the real renderer; the renderer never imports it.
  'src-renderer/dev': ['src-main/shared', 'src-renderer'],
};

/** Packages a layer may not import (bare specifiers, prefix match). */
const FORBIDDEN_PACKAGES = {
  'src-main/shared': ['node:', 'electron', 'react', 'zustand', 'recharts', 'ws'],
  'src-renderer': ['node:', 'electron', 'ws'],
  'src-renderer/dev': ['node:', 'electron', 'ws'],
  'src-preload': ['node:'],
  'src-main/node': ['electron', 'react'],
  'src-main/supervisor': ['electron', 'react'],
  'src-main/worker': ['react'],
  'src-main/cli': ['electron', 'react'],
  // A GGUF's chat template is untrusted: only the worker interprets it.
  'src-main/api': ['electron', 'react', '@huggingface/jinja'],
  'src-main/app': ['@huggingface/jinja'],
};

const TEST_FILE = /\.test\.tsx?$|\.test-util\.tsx?$/;
const FIXTURES = /(^|\/)fixtures\//;
/** Names of the schemes test helpers used before the convention. */
const OTHER_SCHEME = /(^|\/)(test-support|testdata|testing|test-helpers?|test-fixtures)(\/|\.tsx?$)|-test-(helpers?|support|fixtures)\.tsx?$/;
const isTestPath = (p) => TEST_FILE.test(p) || FIXTURES.test(p);

function layerOf(path) {
  let best = null;
  for (const l of Object.keys(LAYERS)) if (path === l || path.startsWith(l + '/')) if (!best || l.length > best.length) best = l;
  return best;
}

/** Import specifiers in a source text (static imports and re-exports, dynamic imports). */
export function importsOf(source) {
  const out = [];
  const re = /(?:^|[\s;])(?:import|export)\s[^'"`;]*?from\s*['"]([^'"]+)['"]|(?:^|[\s;(])import\s*\(\s*['"]([^'"]+)['"]\s*\)|(?:^|[\s;])import\s+['"]([^'"]+)['"]/gm;
  for (const m of source.matchAll(re)) out.push(m[1] ?? m[2] ?? m[3]);
  return out;
}

/**
 * @param {{ path: string, source: string }[]} files repository-relative POSIX paths
 * @returns {{ file: string, import: string, why: string }[]}
 */
export function checkLayers(files) {
  const violations = [];
  for (const f of files) {
    const layer = layerOf(f.path);
    // Build configurations (vite, vitest) run in Node at build time, whatever folder holds them.
    if (!layer || /\.config\.ts$/.test(f.path)) continue;
    const isTest = isTestPath(f.path);
    if (OTHER_SCHEME.test(f.path)) violations.push({ file: f.path, import: '', why: 'a test helper is named *.test-util.ts (beside its users); fixtures live in a fixtures/ folder' });
    for (const spec of importsOf(f.source)) {
      if (spec.startsWith('.')) {
        const target = posix.normalize(posix.join(posix.dirname(f.path), spec));
        const tl = layerOf(target);
        if (isTestPath(target.replace(/\.js$/, '.ts'))) {
          if (!isTest) violations.push({ file: f.path, import: spec, why: 'production code imports a test helper' });
          continue;
        }
        if (!tl || tl === layer || isTest) continue;
        if (!LAYERS[layer].includes(tl)) violations.push({ file: f.path, import: spec, why: `${layer} may not import ${tl}` });
      } else {
        const bad = (FORBIDDEN_PACKAGES[layer] ?? []).find((p) => spec === p || spec.startsWith(p.endsWith(':') ? p : `${p}/`) || spec === p);
        if (bad && !isTest) violations.push({ file: f.path, import: spec, why: `${layer} may not import ${bad.endsWith(':') ? 'Node built-ins' : `'${bad}'`}` });
      }
    }
  }
  return violations;
}

/** Every .ts/.tsx file under the layered folders, as repository-relative POSIX paths. */
export function repoFiles(root) {
  const out = [];
  const walk = (dir) => {
    for (const e of readdirSync(dir)) {
      if (e === 'node_modules' || e === 'build' || e === 'out') continue;
      const p = join(dir, e);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.(ts|tsx)$/.test(e) && !e.endsWith('.d.ts')) out.push({ path: relative(root, p).split(sep).join('/'), source: readFileSync(p, 'utf8') });
    }
  };
  for (const d of ['src-main', 'src-preload', 'src-renderer']) walk(join(root, d));
  return out;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  const v = checkLayers(repoFiles(root));
  for (const x of v) process.stderr.write(x.import ? `${x.file}: import '${x.import}' — ${x.why}\n` : `${x.file}: ${x.why}\n`);
  process.stderr.write(v.length ? `layers: ${v.length} violation(s)\n` : 'layers: ok\n');
  process.exit(v.length ? 1 : 0);
}
