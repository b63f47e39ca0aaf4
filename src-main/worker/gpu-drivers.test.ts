// A worker that offloads nothing loads no GPU driver: no Vulkan driver, and no CUDA device for
// the CUDA runtime to start on (a CUDA build would otherwise initialise every card in every CPU
// worker).
import { describe, expect, it } from 'vitest';
import { gpuDriverEnv } from './gpu-drivers.js';

describe('GPU drivers in a worker', () => {
  it('a CPU worker: the Vulkan loader loads no driver and the CUDA runtime sees no device', () => {
    expect(gpuDriverEnv(false)).toEqual({ VK_LOADER_DRIVERS_DISABLE: '*', CUDA_VISIBLE_DEVICES: '' });
  });
});
