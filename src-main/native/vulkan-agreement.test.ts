// The VRAM tier on a real Vulkan device (lavapipe in CI): a model with half its layers on the
// device and the rest on the CPU decodes, and its greedy tokens agree with the CPU-only run at
// ≥ 90 % of 128 teacher-forced positions (Vulkan and the CPU round differently: the positions
// are compared on the same sequence, so one different token does not derail the rest). A
// mixture of experts with the dense part of every layer on the device and its experts kept on
// the CPU (the plan's dense-first placement) agrees the same way.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { synthesize } from '../synth/synthesize.js';
import { EXPERT_TENSOR_PATTERN } from '../shared/plan/place-vram.js';
import { agreement, cpuSequence, placedArgmax, vulkanSkip } from './vulkan.test-util.js';

const vk = vulkanSkip();
const N = 128;
const PROMPT = 'Once upon a time, in a land far away, there lived';
let dir = '';

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ramforge-vulkan-'));
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(vk.skip)('the VRAM tier on a Vulkan device', () => {
  it('half the layers on the device: greedy tokens agree with the CPU-only run on ≥ 90 % of 128 teacher-forced positions', async () => {
    expect(vk.why, vk.why).toBe('');
    const path = join(dir, 'llama8.gguf');
    await synthesize({ arch: 'llama', preset: 'tiny', type: 'Q4_0', seed: 3, out: path, overrides: { nLayer: 8 } });
    const { prompt, sequence } = cpuSequence(path, PROMPT, N);
    expect(sequence.length).toBe(prompt.length + N);
    const cpu = placedArgmax(path, sequence, {}, null);
    // The teacher-forced argmax is what greedy decoding chose (one batch against token by token:
    // the CPU's own kernels round a little differently between the two, so nearly always).
    const next = sequence.map((_, i) => sequence[i + 1] ?? -1);
    const self = agreement(cpu.argmax, next, prompt.length - 1, N - 1);
    console.log(`CPU teacher-forced vs CPU greedy decode: ${(self * 100).toFixed(1)} %`);
    expect(self).toBeGreaterThanOrEqual(0.9);
    // n_gpu_layers 5: the output head and the last 4 of 8 blocks.
    const gpu = placedArgmax(path, sequence, { gpuLayers: 5, devices: ['Vulkan0'] }, vk.device);
    const onDevice = gpu.tensors.filter((t) => !t.host).map((t) => t.name);
    expect(onDevice.filter((n) => /^blk\.(4|5|6|7)\./.test(n)).length).toBeGreaterThan(0);
    expect(onDevice.some((n) => /^blk\.[0-3]\./.test(n))).toBe(false);
    expect(onDevice).toContain('output.weight');
    expect(gpu.memory.some((b) => !b.host && b.model > 0 && b.context > 0)).toBe(true);
    const share = agreement(cpu.argmax, gpu.argmax, prompt.length - 1, N);
    console.log(`Vulkan (${vk.device?.name}) half layers vs CPU: ${(share * 100).toFixed(1)} % of ${N} teacher-forced positions agree`);
    expect(share).toBeGreaterThanOrEqual(0.9);
  });

  it('a mixture of experts: the dense part of every layer on the device, the experts on the CPU, tokens agree as above', async () => {
    expect(vk.why, vk.why).toBe('');
    const path = join(dir, 'moe.gguf');
    await synthesize({ arch: 'llama', preset: 'tiny', type: 'Q4_0', seed: 5, out: path, overrides: { nLayer: 4, nExpert: 8, nExpertUsed: 2 } });
    const { prompt, sequence } = cpuSequence(path, PROMPT, N);
    expect(sequence.length).toBe(prompt.length + N);
    const cpu = placedArgmax(path, sequence, {}, null);
    const gpu = placedArgmax(path, sequence, { gpuLayers: 5, devices: ['Vulkan0'], cpuTensors: [EXPERT_TENSOR_PATTERN] }, vk.device);
    const experts = gpu.tensors.filter((t) => /_exps\./.test(t.name));
    expect(experts.length).toBe(4 * 3);
    expect(experts.every((t) => t.host)).toBe(true);
    const dense = gpu.tensors.filter((t) => /^blk\.\d+\.(attn_q|attn_k|attn_v|attn_output|ffn_gate_inp)\.weight$/.test(t.name));
    expect(dense.length).toBe(4 * 5);
    expect(dense.every((t) => !t.host)).toBe(true);
    const share = agreement(cpu.argmax, gpu.argmax, prompt.length - 1, N);
    console.log(`Vulkan (${vk.device?.name}) MoE dense-first vs CPU: ${(share * 100).toFixed(1)} % of ${N} teacher-forced positions agree`);
    expect(share).toBeGreaterThanOrEqual(0.9);
  });
});
