import { describe, expect, it } from 'vitest';
import { asGpuList, planGpu, planGpuText } from './gpu-model.js';

describe('the GPU in the UI', () => {
  it('reads the device list, marking software devices and the default', () => {
    const l = asGpuList({ schemaVersion: 1, vulkanBuilt: true, error: null, devices: [{ index: 0, name: 'llvmpipe', type: 'cpu', software: true, memoryFree: 2, memoryTotal: 2, defaultVramBytes: 1, default: false }, { name: 'no index' }] });
    expect(l.built).toBe(true);
    expect(l.devices).toEqual([{ backend: 'Vulkan', index: 0, gpu: '0', name: 'llvmpipe', type: 'cpu', software: true, memoryFree: 2, memoryTotal: 2, defaultVramBytes: 1, isDefault: false }]);
    expect(asGpuList(null)).toEqual({ built: false, error: null, devices: [] });
  });

  it("reads a plan's VRAM tier and says it in a line", () => {
    const q = (value: number) => ({ value, formula: 'x' });
    const g = planGpu({ device: 'Vulkan0', gpuLayers: 5, layers: [4, 5, 6, 7], mode: 'dense-first', cpuTensors: ['\\.ffn_(up|down|gate)_exps'], quantities: { budgetBytes: q(100), headBytes: q(10), layerWeightBytes: q(20), usedBytes: q(60) } })!;
    expect(g).toMatchObject({ gpuLayers: 5, layers: 4, weightBytes: 30, usedBytes: 60, budgetBytes: 100 });
    expect(planGpuText(g, (n) => `${n} B`)).toBe('VRAM on Vulkan0: the output head and the dense part of 4 layers (experts stay in RAM), 30 B of weights; 60 B of 100 B with KV and compute (n_gpu_layers 5)');
    expect(planGpu(undefined)).toBeNull();
  });
});
