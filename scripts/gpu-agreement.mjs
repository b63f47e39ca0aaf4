// The GPU check's token agreement: greedy tokens with the plan's placement against the CPU-only
// run, teacher-forced (src-main/native/vulkan.test-util.ts measures the same in the tests). The
// CPU run generates a short greedy sequence, then both placements give the argmax after every
// prefix of that one sequence, so a position where the device rounds to another token is one
// disagreement and does not derail the positions after it. Each side runs the addon in a child
// process of its own: ggml reads the device variables once, when the addon loads.
import { spawnSync } from 'node:child_process';
import { cpus } from 'node:os';
import { join } from 'node:path';

/** At least this share of the positions agree, or the check fails (a device that computes wrongly). */
export const MIN_AGREEMENT = 0.9;
const PROMPT = 'Once upon a time, in a land far away, there lived';
/** What a CPU-only worker starts with (src-main/worker/gpu-drivers.ts): no GPU at all. */
const CPU_ONLY_ENV = { GGML_VK_VISIBLE_DEVICES: '', VK_LOADER_DRIVERS_DISABLE: '*', CUDA_VISIBLE_DEVICES: '' };
const GREEDY = { temperature: 0, topK: 0, topP: 1, minP: 0, seed: 1, repeatPenalty: 1, repeatLastN: 0 };

// Loads the model with `opts` (the addon's placement options); without `arg.tokens` it first
// generates `arg.n` greedy tokens after the prompt; prints the sequence and its argmax positions.
const CHILD = `
const m = await addon.loadModel([arg.model], { mmap: true, repack: false, ...arg.opts });
const ctx = m.createContext({ nCtx: 512, nBatch: 512, nThreads: arg.threads });
let prompt = null;
let tokens = arg.tokens;
if (!tokens) {
  prompt = Array.from(m.tokenize(arg.prompt, true, false));
  const r = await ctx.generate(Int32Array.from(prompt), { maxTokens: arg.n, ...arg.greedy });
  tokens = [...prompt, ...r.tokens];
}
const argmax = Array.from(addon.greedyPositions(ctx, Int32Array.from(tokens)));
ctx.free(); m.free();
process.stdout.write(JSON.stringify({ prompt, tokens, argmax }) + '\\n');`;

function runChild(root, env, arg) {
  const addon = join(root, 'native', 'build', 'Release', 'ramforge.node');
  const script = `import { createRequire } from 'node:module'; const addon = createRequire(import.meta.url)(${JSON.stringify(addon)}); const arg = JSON.parse(process.argv[1]);\n${CHILD}`;
  const base = { ...process.env };
  delete base.VK_LOADER_DRIVERS_DISABLE;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script, JSON.stringify(arg)], { env: { ...base, GGML_NO_BACKTRACE: '1', ...env }, encoding: 'utf8', timeout: 300_000, maxBuffer: 64 * 1024 * 1024 });
  const line = (r.stdout ?? '').trim().split('\n').pop() ?? '';
  if (r.status !== 0 || !line.startsWith('{')) throw new Error(`the ${env === CPU_ONLY_ENV ? 'CPU' : 'GPU'} side ended ${r.signal ?? r.status}: ${(r.stderr ?? '').trim().split('\n').slice(-3).join(' ')}`);
  return JSON.parse(line);
}

/** Share of the positions after the prompt where both sides pick the same token. */
export function agreementOf(cpu, gpu, promptLength) {
  const positions = cpu.length - promptLength;
  let same = 0;
  for (let i = promptLength - 1; i < cpu.length - 1; i++) if (cpu[i] === gpu[i]) same++;
  return { positions, same };
}

/**
 * `placement`: what our run put on the device (its report's gpu section: device, gpu_layers,
 * cpu_tensors); `env`: the device's worker variables. Returns { positions, share, ok }.
 */
export function measureAgreement({ root, model, placement, env, tokens = 32 }) {
  const threads = Math.max(1, cpus().length);
  const cpu = runChild(root, CPU_ONLY_ENV, { model, opts: {}, prompt: PROMPT, n: tokens, greedy: GREEDY, threads });
  const opts = { gpuLayers: placement.gpu_layers, devices: [placement.device], ...(placement.cpu_tensors.length > 0 ? { cpuTensors: placement.cpu_tensors } : {}) };
  const gpu = runChild(root, env, { model, opts, tokens: cpu.tokens, threads });
  const { positions, same } = agreementOf(cpu.argmax, gpu.argmax, cpu.prompt.length);
  if (positions === 0) throw new Error('the CPU run generated no token to compare');
  const share = same / positions;
  return { positions, same, share, ok: share >= MIN_AGREEMENT };
}
