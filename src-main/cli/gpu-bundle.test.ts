// The GPU bundle (`npm run gpu-bundle -- DIR`, scripts/gpu-bundle.mjs) made here and run as a
// bare GPU machine runs it: DIR/run from a clean temporary folder under `env -i`, with a PATH
// that holds no Node.js, Vulkan on Mesa's lavapipe standing in for CUDA. It must reach its one
// JSON line with `"ok": true`, on a Vulkan device, its greedy tokens agreeing with the CPU-only
// run, from a bundle under 60 MiB.
//
// RAMFORGE_CACHE is passed as the cache the project's own build uses, so a runner whose
// llama.cpp build has the same key (tag, patches, flags, CPU, compiler) builds none of llama.cpp
// again: the bundle's source carries the same identity and selects the same build folder. Only
// the addon (keyed by its sources) is built the first time. It takes minutes, so it runs in CI
// (CI=true), where a missing lavapipe or toolchain fails it; elsewhere RAMFORGE_TEST_GPU_BUNDLE=1
// runs it.
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cacheRoot, packageRoot } from '../node/paths.js';
import { vulkanSkip } from '../native/vulkan.test-util.js';

const wanted = process.env.CI === 'true' || process.env.RAMFORGE_TEST_GPU_BUNDLE === '1';
if (!wanted) console.warn('skipping the GPU bundle test: it runs in CI (CI=true) or with RAMFORGE_TEST_GPU_BUNDLE=1');
const vk = wanted ? vulkanSkip() : { skip: true, why: '' };
const MiB = 1024 * 1024;
// The project's own llama.cpp cache (scripts/llama-cpp.mjs computes the same folder).
const cache = cacheRoot();
const work = mkdtempSync(join(tmpdir(), 'ramforge-gpu-bundle-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const NOT_NODE = new Set(['node', 'nodejs', 'npm', 'npx', 'corepack']);

/**
 * A PATH folder of links to the system's tools, without Node.js (which this machine has in
 * /usr/bin): a bare GPU machine has a shell, tar, a compiler and cmake, but no Node.js.
 */
function pathWithoutNode(): string {
  const bin = join(work, 'bin');
  mkdirSync(bin);
  for (const dir of ['/usr/sbin', '/usr/bin', '/sbin', '/bin']) {
    if (!existsSync(dir)) continue;
    for (const f of readdirSync(dir)) {
      if (NOT_NODE.has(f) || existsSync(join(bin, f))) continue;
      symlinkSync(join(dir, f), join(bin, f));
    }
  }
  return bin;
}

function sizeOf(p: string): number {
  const s = statSync(p);
  return s.isDirectory() ? readdirSync(p).reduce((n, f) => n + sizeOf(join(p, f)), 0) : s.size;
}

/** scripts/llama-cpp.mjs paths, as JSON, with `env` added. */
function llamaPaths(env: Record<string, string>): { source: string; build: string } {
  const r = spawnSync(process.execPath, [join(packageRoot(), 'scripts', 'llama-cpp.mjs'), 'paths'], { env: { ...process.env, ...env }, encoding: 'utf8' });
  return JSON.parse(r.stdout) as { source: string; build: string };
}

describe.skipIf(vk.skip)('the GPU bundle', () => {
  it("its llama.cpp source, extracted into an empty cache, is keyed as the project's own build", () => {
    const dir = join(work, 'source-only');
    const made = spawnSync(process.execPath, [join(packageRoot(), 'scripts', 'gpu-bundle.mjs'), dir], { cwd: packageRoot(), env: { ...process.env, RAMFORGE_CACHE: cache }, encoding: 'utf8', timeout: 600_000 });
    expect(made.status, made.stderr).toBe(0);
    const empty = join(work, 'empty-cache');
    const env = { RAMFORGE_CACHE: empty, RAMFORGE_LLAMA_SOURCE: join(dir, 'llama.cpp.tar.xz') };
    const r = spawnSync(process.execPath, [join(packageRoot(), 'scripts', 'llama-cpp.mjs'), 'source'], { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 120_000 });
    expect(r.status, r.stderr).toBe(0);
    const theirs = llamaPaths(env);
    expect(existsSync(join(theirs.source, 'tools', 'llama-bench', 'llama-bench.cpp'))).toBe(true);
    expect(theirs.build.slice(empty.length)).toBe(llamaPaths({ RAMFORGE_CACHE: cache }).build.slice(cache.length));
    // A tarball that does not say it is this tag with this patch set (here the Node.js archive) is refused.
    const other = join(work, 'other-cache');
    const bad = spawnSync(process.execPath, [join(packageRoot(), 'scripts', 'llama-cpp.mjs'), 'source'], {
      env: { ...process.env, RAMFORGE_CACHE: other, RAMFORGE_LLAMA_SOURCE: join(dir, 'node.tar.xz') },
      encoding: 'utf8',
    });
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toMatch(/holds llama\.cpp \? with patches \?/);
  }, 900_000);

  it('runs from a clean folder under env -i without Node.js on the PATH, to one JSON line with ok: true on a Vulkan device, from under 60 MiB', () => {
    expect(vk.why, vk.why).toBe('');
    const dir = join(work, 'bundle');
    const made = spawnSync(process.execPath, [join(packageRoot(), 'scripts', 'gpu-bundle.mjs'), dir], {
      cwd: packageRoot(),
      env: { ...process.env, RAMFORGE_CACHE: cache },
      encoding: 'utf8',
      timeout: 600_000,
    });
    expect(made.status, made.stderr).toBe(0);
    expect(sizeOf(dir)).toBeLessThan(60 * MiB);

    const PATH = pathWithoutNode();
    expect(spawnSync('sh', ['-c', 'command -v node'], { env: { PATH } }).status).not.toBe(0);
    const clean = join(work, 'clean');
    mkdirSync(clean);
    const r = spawnSync('env', ['-i', `PATH=${PATH}`, `RAMFORGE_CACHE=${cache}`, join(dir, 'run')], { cwd: clean, encoding: 'utf8', timeout: 600_000, maxBuffer: 64 * MiB });
    const lines = (r.stdout ?? '').trim().split('\n');
    // What the check measured, in the CI log.
    console.info(`gpu-bundle check: ${r.stdout}`);
    expect(lines, `stderr: ${(r.stderr ?? '').slice(-3000)}`).toHaveLength(1);
    const out = JSON.parse(lines[0]) as { ok: boolean; error: string | null; device: { name: string; backend: string }; ramforge: { device: string | null }; llama_cpp: { backend: string | null }; agreement: { positions: number; share: number; ok: boolean } };
    expect(out.error, (r.stderr ?? '').slice(-3000)).toBeNull();
    expect(out.ok).toBe(true);
    expect(r.status).toBe(0);
    // The device the plan placed layers on, and the backend llama-bench ran, are Vulkan ones.
    expect(out.ramforge.device).toMatch(/^Vulkan\d+$/);
    expect(out.llama_cpp.backend).toMatch(/Vulkan/);
    expect(out.device.backend).toBe('Vulkan');
    // The dense shape's greedy tokens with that placement against the CPU-only run's, teacher-forced.
    expect(out.agreement).toMatchObject({ positions: 32, ok: true });
    expect(out.agreement.share).toBeGreaterThanOrEqual(0.9);
    expect(readFileSync(join(dir, 'gpu-check.json'), 'utf8').trim()).toBe(lines[0]);
  }, 1_200_000);
});
