#!/usr/bin/env node
// `npm run gpu-check`: the VRAM tier on this machine's GPU, against llama.cpp's own placement,
// in one JSON object on stdout (progress on stderr), in at most 8 minutes.
//   1. Builds what it needs: llama.cpp with its GPU backend (Vulkan where glslc and the Vulkan
//      headers exist; scripts/llama-cpp.mjs), our addon and CLI, llama-bench and
//      llama-fit-params (cached: a second run builds nothing).
//   2. Picks the device: the one runs use by default (the first CUDA device, else the first
//      hardware Vulkan GPU), else a software one (lavapipe), which only proves the path (its
//      speed is the CPU's, through Vulkan).
//   3. Writes a synthetic model larger than the VRAM budget (half the model: a real GPU gets a
//      1B-shaped Llama, a software device a small one).
//   4. Runs `ramforge bench` with the plan's placement under that budget, then asks llama.cpp's
//      fit logic (llama-fit-params with the margin that leaves the same budget free) which -ngl
//      it picks, and runs llama-bench with it. For the dense shape, the greedy tokens with our
//      placement against the CPU-only run's (teacher-forced agreement, ≥ 90 %: gpu-agreement.mjs).
// Exit 0 with the JSON line when both sides ran and the tokens agree; 1 when something failed (the JSON says what).
//   --prebuilt    skip step 1's builds (the GPU bundle's run script has built everything)
//   --out FILE    write the JSON line to FILE too
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { measureAgreement, MIN_AGREEMENT } from './gpu-agreement.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const t0 = Date.now();
const MiB = 1024 * 1024;
const TOKENS = Number(process.env.GPU_CHECK_TOKENS ?? 16);
// A short sequence: under a minute on lavapipe (2 shared cores), and 32 positions still tell a
// device that computes wrongly.
const AGREEMENT_TOKENS = 32;
const CTX = 512;
// One micro-batch on both sides: its compute buffer is part of the budget, and the same size in both.
const UBATCH = 64;
const log = (m) => process.stderr.write(`[gpu-check ${((Date.now() - t0) / 1000).toFixed(0)}s] ${m}\n`);
const out = { schema: 'ramforge-gpu-check/1', ok: false, error: null };
const argv = process.argv.slice(2);
const prebuilt = argv.includes('--prebuilt');
const outFile = argv.includes('--out') ? argv[argv.indexOf('--out') + 1] : null;

function finish(code) {
  out.seconds = Math.round((Date.now() - t0) / 100) / 10;
  const line = JSON.stringify(out) + '\n';
  if (outFile) writeFileSync(outFile, line);
  process.stdout.write(line);
  process.exit(code);
}

function fail(step, e) {
  out.error = `${step}: ${e instanceof Error ? e.message.split('\n').slice(0, 6).join(' ') : String(e)}`;
  finish(1);
}

function hasCommand(cmd) {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
}

function cli(args, env = {}) {
  return execFileSync(process.execPath, [join(root, 'bin', 'ramforge.mjs'), ...args], { cwd: root, env: { ...process.env, ...env }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 256 * MiB });
}

// 1. Build.
let bdir;
try {
  const { buildDir, cudaWanted, vulkanToolchain } = await import('./llama-cpp.mjs');
  const vk = vulkanToolchain();
  bdir = buildDir();
  const cudaBuilt = () => existsSync(join(bdir, 'ggml', 'src', 'ggml-cuda', 'libggml-cuda.a'));
  out.build = { vulkan: vk.available, vulkan_missing: vk.missing, cuda: { nvcc: hasCommand('nvcc'), wanted: cudaWanted(), built: cudaBuilt() }, prebuilt };
  if (!vk.available && !cudaWanted()) throw new Error(`no GPU backend can be built: the Vulkan toolchain is missing (${vk.missing.join(', ')}; apt-get install glslc libvulkan-dev spirv-headers) and there is no nvcc with an NVIDIA device`);
  if (!prebuilt) {
    log('building llama.cpp with the GPU backend, the addon and the CLI (cached)');
    // In child processes whose output goes to stderr: stdout carries the one JSON object.
    const step = (args) => execFileSync(process.execPath, args, { cwd: root, stdio: ['ignore', 2, 2] });
    step([join(root, 'scripts', 'build-native.mjs')]);
    step([join(root, 'scripts', 'llama-cpp.mjs'), 'build', 'llama-bench', 'llama-fit-params']);
    step([join(root, 'scripts', 'build-cli.mjs')]);
  }
  out.build.cuda.built = cudaBuilt();
} catch (e) {
  fail('build', e);
}

// 2. The device.
let device;
try {
  const list = JSON.parse(cli(['devices', '--json']));
  out.devices = list.devices.map((d) => ({ backend: d.backend, index: d.index, gpu: d.gpu, name: d.name, type: d.type, software: d.software, memory_free: d.memoryFree, memory_total: d.memoryTotal }));
  device = list.devices.find((d) => d.default) ?? list.devices.find((d) => !d.software) ?? list.devices[0];
  if (!device) throw new Error(list.error ?? `no GPU device (${out.build.cuda.built ? 'CUDA was built: is the NVIDIA driver loaded?' : 'install the GPU driver, or mesa-vulkan-drivers for lavapipe'})`);
  out.device = { backend: device.backend, index: device.index, gpu: device.gpu, name: device.name, type: device.type, software: device.software };
} catch (e) {
  fail('devices', e);
}
// What the worker gets for this device (`devices` prints shared/gpu/gpu-choice.ts's choice): llama.cpp's tools get the same.
const gpuEnv = device.env;

// 3–5. A shape written with `synth`, ours under the budgets, llama.cpp's fit under the same VRAM.
const dir = mkdtempSync(join(tmpdir(), 'ramforge-gpu-check-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

function synth(name, args) {
  const model = join(dir, `${name}.gguf`);
  log(`writing a synthetic model (${args.join(' ')})`);
  cli(['synth', ...args, '--type', 'Q4_0', '-o', model, '-q']);
  return { model, bytes: statSync(model).size };
}

// Ours: the plan's placement under the budgets, from `ramforge bench` and its report.
function ours(model, ram, vram, tokens) {
  log(`ramforge bench under --ram ${Math.round(ram / MiB)} MiB --vram ${Math.round(vram / MiB)} MiB`);
  const reports = join(dir, `reports-${Date.now()}`);
  const j = JSON.parse(cli(['bench', model, '--ram', String(ram), '--vram', String(vram), '--gpu', device.gpu, '--policies', 'off', '--tokens', String(tokens), '--ctx', String(CTX), '--batch', String(UBATCH), '--report-dir', reports, '--json']));
  const row = j.results[0];
  const file = readdirSync(reports).find((f) => f.endsWith('.json'));
  const g = JSON.parse(readFileSync(join(reports, file), 'utf8')).gpu ?? null;
  const r = {
    status: row.status,
    device: g?.device ?? null,
    decode_tok_s: row.decode_tok_s,
    gpu_layers: g?.gpu_layers ?? 0,
    cpu_tensors: g?.cpu_tensors ?? [],
    planned_device_bytes: g?.planned_bytes ?? null,
    measured_device_bytes: g?.measured_bytes ?? null,
    within_budget: g?.within_budget ?? null,
  };
  if (row.status !== 'ok') throw new Error(`bench ended ${row.status}`);
  // Nothing on the device makes the comparison one of the CPU against llama.cpp's GPU placement.
  if (r.device === null) throw new Error(`the plan put nothing on the device under --vram ${Math.round(vram / MiB)} MiB`);
  return r;
}

const tail = (r) => (r.stderr ?? '').trim().split('\n').slice(-3).join(' ');

// llama.cpp: what its fit logic picks when the device keeps (free − budget) free (-ngl, and for a
// mixture the experts it keeps on the CPU, as -ot), then llama-bench with that placement (mmap on).
function theirs(model, vram, tokens) {
  const free = device.memoryFree ?? device.memory_free;
  const margin = Math.max(0, Math.floor(free / MiB) - Math.floor(vram / MiB));
  const env = { ...process.env, ...gpuEnv };
  log(`llama-fit-params with a margin of ${margin} MiB`);
  const fit = spawnSync(join(bdir, 'bin', 'llama-fit-params'), ['-m', model, '-fitt', String(margin), '-c', String(CTX), '-b', String(UBATCH), '-ub', String(UBATCH)], { env, encoding: 'utf8' });
  const m = /-ngl (-?\d+)/.exec(fit.stdout ?? '');
  if (!m) throw new Error(`llama-fit-params printed no -ngl (exit ${fit.status}): ${tail(fit)}`);
  const ngl = Number(m[1]);
  // fit-params joins its overrides with ',', which llama-bench reads as separate runs: ';' is one run's list.
  const ot = /-ot "([^"]*)"/.exec(fit.stdout ?? '')?.[1] ?? '';
  // One pattern per layer (blk\.12\.ffn_…exps=CPU), or one for every layer (blk\.\d+\.…).
  const cpuMoe = /blk\\\.\\d\+/.test(ot) ? 'all' : new Set([...ot.matchAll(/blk\\?\.(\d+)\\?\.[^=]*exps[^=]*=CPU/g)].map((x) => x[1])).size;
  log(`llama-bench -ngl ${ngl}${ot ? ` -ot (${cpuMoe} layers' experts on the CPU)` : ''}`);
  const threads = String(Math.max(1, cpus().length));
  const args = ['-m', model, '-ngl', String(ngl), ...(ot ? ['-ot', ot.split(',').join(';')] : []), '-p', '0', '-n', String(tokens), '-b', String(UBATCH), '-ub', String(UBATCH), '-r', '1', '-t', threads, '-o', 'json'];
  const b = spawnSync(join(bdir, 'bin', 'llama-bench'), args, { env, encoding: 'utf8', maxBuffer: 64 * MiB });
  const rows = JSON.parse(b.stdout || 'null');
  if (!Array.isArray(rows) || rows.length === 0) throw new Error(`llama-bench printed no result (exit ${b.status}): ${tail(b)}`);
  return { fit_margin_mib: margin, fit_ngl: ngl, fit_overrides: ot || null, fit_n_cpu_moe: cpuMoe, decode_tok_s: rows[0].avg_ts ?? null, backend: rows[0].backends ?? null };
}

const ratio = (a, b) => (a.decode_tok_s && b.decode_tok_s ? a.decode_tok_s / b.decode_tok_s : null);
const soft = device.software;

// 3. Dense: an 8B shape (a small one on a software device) under a VRAM budget of half its size.
try {
  const { model, bytes } = synth('dense', soft ? ['--arch', 'llama', '--preset', 'tiny', '--layers', '24', '--embd', '512', '--ff', '1536'] : ['--arch', 'llama', '--preset', '8b']);
  const vram = Math.floor(Math.min(bytes / 2, device.defaultVramBytes ?? bytes) / MiB) * MiB;
  out.model = { bytes, shape: soft ? 'llama tiny, 24 layers, embd 512, ff 1536' : 'llama 8b' };
  out.vram_budget_bytes = vram;
  out.ramforge = ours(model, Math.floor(totalmem() / 2), vram, TOKENS);
  out.llama_cpp = theirs(model, vram, TOKENS);
  out.ratio = ratio(out.ramforge, out.llama_cpp);
  log(`token agreement with the CPU-only run (${AGREEMENT_TOKENS} teacher-forced positions)`);
  out.agreement = measureAgreement({ root, model, placement: out.ramforge, env: gpuEnv, tokens: AGREEMENT_TOKENS });
  rmSync(model, { force: true });
} catch (e) {
  fail('dense', e);
}

// 4. A mixture: the Qwen3-30B-A3B shape under --vram 4G --ram 8G; on a software device a
// 4-layer cut of the small shape under half its size in VRAM (a quarter, the 30B's proportion,
// is less than its 150k-token output head alone, and the plan then offloads nothing). Its RAM
// budget cannot scale down with it (the fixed costs of a run, ~300 MiB, exceed the whole cut),
// so there it is half the machine's, as for the dense shape.
try {
  const { model, bytes } = synth('moe', soft ? ['--arch', 'qwen3moe', '--preset', 'small', '--layers', '4'] : ['--arch', 'qwen3moe', '--preset', '30b-a3b']);
  const GiB = 1024 * MiB;
  const vram = soft ? Math.floor(bytes / 2 / MiB) * MiB : 4 * GiB;
  const ram = soft ? Math.floor(totalmem() / 2) : 8 * GiB;
  out.moe = { model: { bytes, shape: soft ? 'qwen3moe small, 4 layers' : 'qwen3moe 30b-a3b' }, vram_budget_bytes: vram, ram_budget_bytes: ram };
  const tokens = soft ? Math.min(TOKENS, 8) : TOKENS;
  out.moe.ramforge = ours(model, ram, vram, tokens);
  out.moe.llama_cpp = theirs(model, vram, tokens);
  out.moe.ratio = ratio(out.moe.ramforge, out.moe.llama_cpp);
} catch (e) {
  fail('moe', e);
}

if (soft) out.note = 'software device: the speeds are the CPU through Vulkan and mean nothing; the path (build, placement, budget, measurement) is the one a GPU takes';
if (!out.agreement.ok) fail('agreement', `${(out.agreement.share * 100).toFixed(1)} % of ${out.agreement.positions} greedy positions agree with the CPU-only run, below ${MIN_AGREEMENT * 100} %`);
out.ok = true;
finish(0);
