#!/usr/bin/env node
// Fetches the pinned llama.cpp source and builds only what we link (ggml + llama, static, PIC,
// with the RPC backend and, where their toolchains are installed, the Vulkan and CUDA backends),
// in a cache outside the repo keyed by the pinned tag and the build flags, so clean clones and
// CI reuse it. The source is the git bundle inside the `node-llama-cpp` npm tarball, fetched
// with `npm pack` (installing the package would pull ~670 MB of prebuilt binaries we never use)
// and checked against the integrity hash pinned in package.json. Where there is no registry (the
// GPU bundle, scripts/gpu-bundle.mjs), RAMFORGE_LLAMA_SOURCE names a tarball of the same source
// with our patches applied (gpu-bundle.mjs sourceTarball() writes it, pruned to the targets the
// check builds); it carries the tag and the patch hash, so a build from it is keyed as one from npm.
//
//   node scripts/llama-cpp.mjs source             fetch + verify + clone (idempotent)
//   node scripts/llama-cpp.mjs build [target...]  build targets (default: llama)
//   node scripts/llama-cpp.mjs paths              print the source and build folders as JSON
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir, cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pin = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).llamaCpp;

export function cacheRoot() {
  return process.env.RAMFORGE_CACHE || join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'ramforge');
}

const tagDir = () => join(cacheRoot(), 'llama.cpp', pin.tag);
export const sourceDir = () => join(tagDir(), 'src');
const patchDir = join(root, 'native', 'patches');

function patchFiles() {
  return existsSync(patchDir) ? readdirSync(patchDir).filter((f) => f.endsWith('.patch')).sort() : [];
}

// Our llama.cpp patches are part of the source identity: a changed patch set re-extracts the
// source and selects another build folder.
function patchHash() {
  const h = createHash('sha256');
  for (const f of patchFiles()) h.update(f).update(readFileSync(join(patchDir, f)));
  return h.digest('hex').slice(0, 12);
}

// Everything that changes the compiled libraries goes into the key.
const CMAKE_FLAGS = [
  '-DCMAKE_BUILD_TYPE=Release',
  '-DBUILD_SHARED_LIBS=OFF',
  '-DCMAKE_POSITION_INDEPENDENT_CODE=ON',
  '-DCMAKE_C_VISIBILITY_PRESET=hidden',
  '-DCMAKE_CXX_VISIBILITY_PRESET=hidden',
  // Built on the user's own machine, so -march=native is right; the cache key includes the CPU.
  '-DGGML_NATIVE=ON',
  // AMX tiles need a permission the kernel may not grant (seen here: the CPU advertises AMX,
  // the first tile instruction dies with SIGILL under the hypervisor), so never emit them.
  '-DCMAKE_C_FLAGS=-mno-amx-tile -mno-amx-int8 -mno-amx-bf16',
  '-DCMAKE_CXX_FLAGS=-mno-amx-tile -mno-amx-int8 -mno-amx-bf16',
  '-DGGML_OPENMP=ON',
  '-DLLAMA_BUILD_TESTS=OFF',
  '-DLLAMA_BUILD_SERVER=OFF',
  '-DLLAMA_BUILD_APP=OFF',
  '-DLLAMA_BUILD_UI=OFF',
  '-DLLAMA_OPENSSL=OFF',
  '-DLLAMA_CURL=OFF',
  // Configured (cheap) so that llama-simple and llama-bench can be built on demand for parity
  // and benchmark checks; only the targets asked for are compiled.
  '-DLLAMA_BUILD_COMMON=ON',
  '-DLLAMA_BUILD_EXAMPLES=ON',
  '-DLLAMA_BUILD_TOOLS=ON',
  // The RPC backend (client in the addon, llama.cpp's rpc-server beside it) pools the memory of
  // other machines; it is small and needs nothing outside the source.
  '-DGGML_RPC=ON',
  ...vulkanFlags(),
  ...cudaFlags(),
];

/**
 * ggml's Vulkan backend (NVIDIA, AMD and Intel GPUs; Mesa's lavapipe in CI) is built when the
 * machine has its toolchain: glslc and the Vulkan and SPIR-V headers (Debian: glslc,
 * libvulkan-dev, spirv-headers). Without them the build is CPU-only, as before. The choice is
 * part of the cache key through CMAKE_FLAGS.
 */
export function vulkanToolchain() {
  const missing = [];
  try {
    execFileSync('glslc', ['--version'], { stdio: 'ignore' });
  } catch {
    missing.push('glslc');
  }
  if (!existsSync('/usr/include/vulkan/vulkan.hpp')) missing.push('libvulkan-dev');
  if (!existsSync('/usr/include/spirv/unified1/spirv.hpp')) missing.push('spirv-headers');
  return { available: missing.length === 0, missing };
}

function vulkanFlags() {
  return vulkanToolchain().available ? ['-DGGML_VULKAN=ON'] : ['-DGGML_VULKAN=OFF'];
}

/**
 * ggml's CUDA backend is built where nvcc is on the PATH and an NVIDIA device is present
 * (RAMFORGE_CUDA=1 forces it, =0 turns it off), for that device's architecture only: a build
 * for every architecture takes far longer than the few minutes a borrowed GPU machine gives, and
 * CMake's `native` architecture fails where no device answers (a CI runner may carry the CUDA
 * toolkit without a GPU). Without CUDA the flags are unchanged, so machines without it keep the
 * cache key they had.
 */
export function cudaWanted() {
  if (process.env.RAMFORGE_CUDA === '0') return false;
  if (process.env.RAMFORGE_CUDA === '1') return true;
  let device = false;
  try {
    device = readdirSync('/dev').some((f) => /^nvidia\d+$/.test(f));
  } catch {
    /* no /dev: no device */
  }
  if (!device) return false;
  try {
    execFileSync('nvcc', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function cudaFlags() {
  return cudaWanted() ? ['-DGGML_CUDA=ON', '-DCMAKE_CUDA_ARCHITECTURES=native'] : [];
}

function cpuKey() {
  let model = '';
  try {
    const info = readFileSync('/proc/cpuinfo', 'utf8');
    model = (/^flags\s*:(.*)$/m.exec(info)?.[1] ?? '') + (/^model name\s*:(.*)$/m.exec(info)?.[1] ?? '');
  } catch {
    model = cpus()[0]?.model ?? '';
  }
  let cxx = '';
  try {
    cxx = execFileSync('c++', ['--version'], { encoding: 'utf8' }).split('\n')[0];
  } catch {
    /* reported by cmake */
  }
  return createHash('sha256').update([process.arch, model, cxx, patchHash(), ...CMAKE_FLAGS].join('\n')).digest('hex').slice(0, 12);
}

export const buildDir = () => join(tagDir(), `build-${cpuKey()}`);

function log(msg) {
  process.stderr.write(`[llama.cpp ${pin.tag}] ${msg}\n`);
}

/** What a source folder from sourceTarball() says about itself: the pin it was made from. */
export const SOURCE_ID_FILE = 'ramforge-source.json';
export const sourceId = () => ({ tag: pin.tag, patches: patchHash() });

// npm pack → integrity check → clone the git bundle → apply our patches, into `staging`.
function sourceFromNpm(staging) {
  const work = mkdtempSync(join(tmpdir(), 'ramforge-llama-'));
  try {
    log(`fetching ${pin.package}@${pin.version} with npm pack (source bundle only)`);
    execFileSync('npm', ['pack', `${pin.package}@${pin.version}`, '--pack-destination', work, '--silent'], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const tgz = join(work, `${pin.package}-${pin.version}.tgz`);
    const [algo, expected] = pin.integrity.split(/-(.*)/s);
    const actual = createHash(algo).update(readFileSync(tgz)).digest('base64');
    if (actual !== expected) throw new Error(`integrity mismatch for ${pin.package}@${pin.version}: got ${algo}-${actual}`);
    execFileSync('tar', ['-xzf', tgz, '-C', work, 'package/llama/gitRelease.bundle', 'package/llama/llama.cpp.info.json']);
    const info = JSON.parse(readFileSync(join(work, 'package/llama/llama.cpp.info.json'), 'utf8'));
    if (info.tag !== pin.tag) throw new Error(`bundle holds llama.cpp ${info.tag}, package.json pins ${pin.tag}`);
    execFileSync('git', ['clone', '--quiet', join(work, 'package/llama/gitRelease.bundle'), staging], {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, GIT_TERMINAL_PROMPT: '0' },
    });
    rmSync(join(staging, '.git'), { recursive: true, force: true });
    for (const f of patchFiles()) {
      log(`applying ${f}`);
      execFileSync('git', ['apply', join(patchDir, f)], { cwd: staging, stdio: ['ignore', 'inherit', 'inherit'] });
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

// A tarball from sourceTarball() (patches already applied), accepted only for this pin and patch set.
function sourceFromTarball(tarball, staging) {
  log(`extracting the source from ${tarball}`);
  mkdirSync(staging, { recursive: true });
  execFileSync('tar', ['-xf', tarball, '-C', staging, '--strip-components=1'], { stdio: ['ignore', 'ignore', 'inherit'] });
  const idFile = join(staging, SOURCE_ID_FILE);
  const id = existsSync(idFile) ? JSON.parse(readFileSync(idFile, 'utf8')) : {};
  const want = sourceId();
  if (id.tag !== want.tag || id.patches !== want.patches) {
    throw new Error(`${tarball} holds llama.cpp ${id.tag ?? '?'} with patches ${id.patches ?? '?'}; this checkout pins ${want.tag} with patches ${want.patches}`);
  }
}

export function ensureSource() {
  const src = sourceDir();
  const stamp = join(src, '.ramforge-patches');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === patchHash()) return src;
  if (existsSync(src)) {
    log('patch set changed: re-extracting the source');
    rmSync(src, { recursive: true, force: true });
  }
  mkdirSync(tagDir(), { recursive: true });
  const staging = `${src}.tmp-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  try {
    if (process.env.RAMFORGE_LLAMA_SOURCE) sourceFromTarball(process.env.RAMFORGE_LLAMA_SOURCE, staging);
    else sourceFromNpm(staging);
    writeFileSync(join(staging, '.ramforge-patches'), patchHash());
    renameSync(staging, src);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  log(`source ready in ${src}`);
  return src;
}

export function ensureBuild(targets = ['llama']) {
  const src = ensureSource();
  const bdir = buildDir();
  const jobs = String(Math.max(1, cpus().length));
  if (!existsSync(join(bdir, 'CMakeCache.txt'))) {
    log(`configuring in ${bdir}`);
    mkdirSync(bdir, { recursive: true });
    execFileSync('cmake', ['-S', src, '-B', bdir, ...CMAKE_FLAGS], { stdio: ['ignore', 'ignore', 'inherit'] });
  }
  log(`building ${targets.join(', ')} (cached after the first time)`);
  execFileSync('cmake', ['--build', bdir, '--parallel', jobs, '--target', ...targets], { stdio: ['ignore', 'inherit', 'inherit'] });
  writeFileSync(join(bdir, 'ramforge-stamp.json'), JSON.stringify({ tag: pin.tag, targets, at: new Date().toISOString() }));
  return bdir;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [cmd = 'build', ...rest] = process.argv.slice(2);
  if (cmd === 'source') ensureSource();
  else if (cmd === 'build') ensureBuild(rest.length ? rest : ['llama']);
  else if (cmd === 'paths') process.stdout.write(JSON.stringify({ tag: pin.tag, source: sourceDir(), build: buildDir(), vulkan: vulkanToolchain(), cuda: cudaWanted() }) + '\n');
  else {
    process.stderr.write(`usage: node scripts/llama-cpp.mjs source|build [targets...]|paths\n`);
    process.exit(2);
  }
}
