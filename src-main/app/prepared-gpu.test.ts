// The app starts its worker with the GPU variables `prepare-load` chose, whichever backend the
// device is on. The CUDA device is a stand-in (cuda-machine.test-util.ts): this machine has no NVIDIA GPU.
import { describe, expect, it } from 'vitest';
import { asPrepared } from './settings.js';
import { preparedGpu, resolveGpu } from '../shared/settings/gpu-settings.js';
import { LAVAPIPE, cudaMachineProbe } from '../shared/gpu/cuda-machine.test-util.js';

const answer = (gpu: unknown) => ({ load: { modelPath: '/m.gguf' }, plan: null, files: ['/m.gguf'], gpu });

describe("the app's worker and the chosen GPU", () => {
  it('a CUDA device: the worker gets CUDA_VISIBLE_DEVICES and no Vulkan device, as the CLI\'s does', () => {
    const gpu = preparedGpu(resolveGpu({ gpu: null, vramBytes: null }, cudaMachineProbe([LAVAPIPE])));
    expect(gpu?.device).toBe('CUDA0');
    expect(asPrepared(answer(gpu), '/m.gguf').gpuEnv).toEqual({ CUDA_VISIBLE_DEVICES: '0', GGML_VK_VISIBLE_DEVICES: '', VK_LOADER_DRIVERS_DISABLE: '*' });
  });
});
