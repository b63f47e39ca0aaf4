// The run settings' GPU field lists CUDA devices beside the Vulkan ones and picks each by what
// `--gpu` takes for it (cuda:0, a Vulkan index), from the list `ramforge devices --json` prints.
// The CUDA device is a stand-in (cuda-machine.test-util.ts): this machine has no NVIDIA GPU.
import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import { gpuList } from '../../src-main/shared/gpu/device-list.js';
import { LAVAPIPE, cudaMachineProbe } from '../../src-main/shared/gpu/cuda-machine.test-util.js';
import { asGpuList } from '../lib/gpu-model.js';
import { GpuFields } from './GpuSettings.js';

/** What the app gets from `ramforge devices --json` on the stand-in machine, read as the UI reads it. */
const list = () => asGpuList(JSON.parse(JSON.stringify(gpuList(cudaMachineProbe([LAVAPIPE]), null))));

describe('the GPU setting with a CUDA device', () => {
  it('each device is an option whose value is its --gpu value; the CUDA one is the default', () => {
    const html = renderToStaticMarkup(<GpuFields gpu="cuda:0" list={list()} error={null} onChange={() => {}} />);
    expect(html).toContain('<option value="0">0: llvmpipe (LLVM 15.0.6, 256 bits) (software)</option>');
    expect(html).toContain('<option value="cuda:0" selected="">cuda:0: NVIDIA H200</option>');
    expect(html).toMatch(/data-testid="gpu-device">cuda:0: NVIDIA H200 · CUDA · discrete · default · 139\.0 GiB free/);
    expect(html).not.toContain('no hardware GPU');
  });
});
