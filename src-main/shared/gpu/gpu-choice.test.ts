import { describe, expect, it } from 'vitest';
import { GpuChoiceError, chooseGpu, defaultVramBytes, gpuWorkerEnv, type GpuProbe, type VulkanDevice } from './gpu-choice.js';
import { formatGpuList, gpuList } from './device-list.js';

const GiB = 1024 ** 3;
const lavapipe: VulkanDevice = { index: 0, name: 'llvmpipe (LLVM 15.0.6, 256 bits)', type: 'cpu', apiVersion: '1.3.230', memoryTotal: 2 * GiB, memoryFree: 2 * GiB };
const rtx: VulkanDevice = { index: 1, name: 'NVIDIA GeForce RTX 4070', type: 'discrete', apiVersion: '1.3.280', memoryTotal: 12 * GiB, memoryFree: 11 * GiB };
const probe = (...devices: VulkanDevice[]): GpuProbe => ({ built: true, error: null, devices, cuda: [] });

describe('choosing the GPU', () => {
  it('defaults to the first hardware GPU, never to a software device', () => {
    expect(chooseGpu(probe(lavapipe, rtx), null)?.device.index).toBe(1);
    expect(chooseGpu(probe(lavapipe), null)).toBeNull();
    expect(chooseGpu(null, null)).toBeNull();
  });

  it('a software device only when named, by index or part of its name; none is none', () => {
    const c = chooseGpu(probe(lavapipe, rtx), 'llvmpipe');
    expect(c).toMatchObject({ ggmlName: 'Vulkan0', software: true });
    expect(chooseGpu(probe(lavapipe, rtx), '0')?.device).toBe(lavapipe);
    expect(chooseGpu(probe(lavapipe, rtx), 'rtx')?.device).toBe(rtx);
    expect(chooseGpu(probe(lavapipe, rtx), 'none')).toBeNull();
    expect(() => chooseGpu(probe(lavapipe), 'radeon')).toThrow(GpuChoiceError);
    expect(() => chooseGpu(probe(lavapipe), 'radeon')).toThrow(/0: llvmpipe .*software/);
  });

  it('the worker sees only its device; a software one runs as llama.cpp CI runs lavapipe', () => {
    expect(gpuWorkerEnv(lavapipe)).toEqual({ GGML_VK_VISIBLE_DEVICES: '0', GGML_VK_DISABLE_F16: '1', GGML_VK_DISABLE_COOPMAT: '1' });
    expect(gpuWorkerEnv(rtx)).toEqual({ GGML_VK_VISIBLE_DEVICES: '1' });
  });

  it('--vram defaults to the free memory less a margin', () => {
    expect(defaultVramBytes(rtx)).toBe(Math.floor(11 * GiB - 0.05 * 12 * GiB));
    expect(defaultVramBytes(lavapipe)).toBe(2 * GiB - 256 * 1024 ** 2);
    expect(defaultVramBytes({ memoryFree: 0, memoryTotal: GiB })).toBe(0);
  });

  it('the device list marks software devices and the default, with ggml\'s memory', () => {
    const ggml = [
      { name: 'Vulkan0', description: lavapipe.name, type: 'cpu' as const, backend: 'Vulkan', memoryFree: 2 * GiB, memoryTotal: 2 * GiB },
      { name: 'Vulkan1', description: rtx.name, type: 'gpu' as const, backend: 'Vulkan', memoryFree: 10 * GiB, memoryTotal: 12 * GiB },
    ];
    const l = gpuList(probe(lavapipe, rtx), ggml);
    expect(l.devices.map((d) => [d.index, d.software, d.default, d.memoryFree])).toEqual([
      [0, true, false, 2 * GiB],
      [1, false, true, 10 * GiB],
    ]);
    expect(formatGpuList(l)).toMatch(/llvmpipe.*software: used only with --gpu naming it/);
    expect(formatGpuList(gpuList(probe(lavapipe), null))).toMatch(/No hardware GPU/);
    expect(formatGpuList(gpuList({ built: false, error: 'built without Vulkan', devices: [], cuda: [] }, null))).toMatch(/No GPU backend/);
  });
});
