// Tests on a Vulkan device (Mesa's lavapipe here, any GPU elsewhere). ggml reads
// GGML_VK_VISIBLE_DEVICES once, when the addon loads, so every GPU side of a test runs the addon
// in a child process started with that device visible (as the worker is). In CI a missing
// device fails the test; on a person's machine it skips, saying why.
import { spawnSync } from 'node:child_process';
import { addonPath } from './addon.js';
import { gpuWorkerEnv, type VulkanDevice } from '../shared/gpu/gpu-choice.js';

function runChild<T>(code: string, env: Record<string, string>, arg: unknown = null, timeoutMs = 300_000): T {
  const script = `import { createRequire } from 'node:module'; const addon = createRequire(import.meta.url)(${JSON.stringify(addonPath())}); const arg = JSON.parse(process.argv[1]);\n${code}`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script, JSON.stringify(arg)], {
    env: { ...process.env, GGML_NO_BACKTRACE: '1', ...env },
    encoding: 'utf8',
    timeout: timeoutMs,
    maxBuffer: 64 * 1024 * 1024,
  });
  const line = (r.stdout ?? '').trim().split('\n').pop() ?? '';
  if (r.status !== 0 || !line.startsWith('{')) throw new Error(`the child ended ${r.signal ?? r.status}: ${(r.stderr ?? '').slice(-2000)}`);
  return JSON.parse(line) as T;
}

/** The Vulkan device tests run on: a software one (lavapipe) if that is all there is, else the first. */
export function testVulkanDevice(): { device: VulkanDevice | null; why: string } {
  let out: { built: boolean; error: string | null; devices: VulkanDevice[] };
  try {
    out = runChild(`process.stdout.write(JSON.stringify(addon.vulkanDevices()) + '\\n');`, { GGML_VK_VISIBLE_DEVICES: '' }, null, 60_000);
  } catch (e) {
    return { device: null, why: `the addon could not list Vulkan devices: ${(e as Error).message}` };
  }
  if (!out.built) return { device: null, why: `the addon has no Vulkan backend (${out.error}); install glslc, libvulkan-dev, spirv-headers and rebuild` };
  const device = out.devices.find((d) => d.type !== 'cpu') ?? out.devices[0] ?? null;
  return device ? { device, why: '' } : { device: null, why: `no Vulkan device (${out.error ?? 'none listed'}); install mesa-vulkan-drivers for lavapipe` };
}

/** Skip outside CI when there is no device, saying why; inside CI the test runs and fails on `why`. */
export function vulkanSkip(): { device: VulkanDevice | null; why: string; skip: boolean } {
  const t = testVulkanDevice();
  const skip = t.device === null && process.env.CI !== 'true';
  if (skip) console.warn(`skipping the Vulkan tests: ${t.why}`);
  return { ...t, skip };
}

export interface PlacementRun {
  /** The greedy token after each prefix of the sequence. */
  argmax: number[];
  /** Buffers llama.cpp allocated (native memoryBreakdown). */
  memory: { buffer: string; device: string | null; host: boolean; model: number; context: number; compute: number }[];
  /** Where each tensor's data went: its buffer's name and whether it is host memory. */
  tensors: { name: string; buffer: string | null; host: boolean }[];
}

/**
 * Loads `model` in a child process (with `device` visible when given), places it with `opts`
 * (the addon's loadModel options) and returns the greedy token after every prefix of `tokens`.
 */
export function placedArgmax(model: string, tokens: number[], opts: Record<string, unknown>, device: VulkanDevice | null): PlacementRun {
  const env = device ? gpuWorkerEnv(device) : { GGML_VK_VISIBLE_DEVICES: '' };
  const code = `
    const m = await addon.loadModel([arg.model], { mmap: true, repack: false, ...arg.opts });
    const ctx = m.createContext({ nCtx: arg.tokens.length + 16, nBatch: 512, nThreads: 2 });
    const argmax = Array.from(addon.greedyPositions(ctx, Int32Array.from(arg.tokens)));
    const memory = addon.memoryBreakdown(ctx);
    const tensors = m.tensors().map((t) => ({ name: t.name, buffer: t.buffer, host: t.host }));
    ctx.free(); m.free();
    process.stdout.write(JSON.stringify({ argmax, memory, tensors }) + '\\n');`;
  return runChild<PlacementRun>(code, env, { model, tokens, opts });
}

/** CPU-only greedy continuation: the prompt's tokens and `n` generated after it. */
export function cpuSequence(model: string, prompt: string, n: number): { prompt: number[]; sequence: number[] } {
  const code = `
    const m = await addon.loadModel([arg.model], { mmap: true, repack: false });
    const ctx = m.createContext({ nCtx: 512, nBatch: 512, nThreads: 2 });
    const prompt = Array.from(m.tokenize(arg.prompt, true, false));
    const r = await ctx.generate(Int32Array.from(prompt), { maxTokens: arg.n, temperature: 0, topK: 0, topP: 1, minP: 0, seed: 1, repeatPenalty: 1, repeatLastN: 0 });
    ctx.free(); m.free();
    process.stdout.write(JSON.stringify({ prompt, sequence: [...prompt, ...r.tokens] }) + '\\n');`;
  return runChild(code, { GGML_VK_VISIBLE_DEVICES: '' }, { model, prompt, n });
}

/** Share of the teacher-forced positions after the prompt where the two placements pick the same token. */
export function agreement(a: number[], b: number[], from: number, n: number): number {
  let same = 0;
  for (let i = from; i < from + n; i++) if (a[i] === b[i]) same++;
  return same / n;
}
