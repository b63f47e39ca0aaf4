#!/usr/bin/env node
// Builds the addon (native/build/Release/ramforge.node) against the cached llama.cpp build.
// Skips everything when neither our native sources nor the llama.cpp build changed.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildDir, ensureBuild, sourceDir } from './llama-cpp.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const nativeDir = join(root, 'native');
const out = join(nativeDir, 'build');
const addon = join(out, 'Release', 'ramforge.node');
const stampFile = join(out, 'ramforge-stamp');

function nativeHash() {
  const h = createHash('sha256');
  const walk = (dir) => {
    for (const f of readdirSync(dir).sort()) {
      const p = join(dir, f);
      if (p === out) continue;
      if (statSync(p).isDirectory()) walk(p);
      else h.update(p).update(readFileSync(p));
    }
  };
  walk(nativeDir);
  h.update(buildDir());
  return h.digest('hex');
}

export function ensureNative({ force = false } = {}) {
  // llama.cpp's rpc-server is what `ramforge rpc-server` supervises.
  ensureBuild(['llama', 'ggml-rpc-server']);
  const hash = nativeHash();
  if (!force && existsSync(addon) && existsSync(stampFile) && readFileSync(stampFile, 'utf8') === hash) return addon;
  // A cache configured against another llama.cpp build folder would keep linking the old one.
  const cache = join(out, 'CMakeCache.txt');
  if (existsSync(cache) && !readFileSync(cache, 'utf8').includes(`LLAMA_BUILD_DIR:UNINITIALIZED=${buildDir()}`)) {
    rmSync(out, { recursive: true, force: true });
  }
  process.stderr.write('[native] building the addon with cmake-js\n');
  execFileSync(
    process.execPath,
    [
      join(root, 'node_modules', 'cmake-js', 'bin', 'cmake-js'),
      'build',
      '--directory', nativeDir,
      '--out', out,
      '--config', 'Release',
      '--parallel', '2',
      `--CDLLAMA_SRC_DIR=${sourceDir()}`,
      `--CDLLAMA_BUILD_DIR=${buildDir()}`,
      '--log-level', 'warn',
    ],
    { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] },
  );
  if (!existsSync(addon)) throw new Error(`cmake-js finished but ${addon} is missing`);
  writeFileSync(stampFile, hash);
  return addon;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  ensureNative({ force: process.argv.includes('--force') });
}
