// The CUDA devices beside the Vulkan ones: read from ggml's own list, listed in their own index
// space (cuda:N), chosen by default over Vulkan devices, and given to the worker alone. Fed with
// a stand-in of the list an H200 machine returns (cuda-machine.test-util.ts): this machine has
// no NVIDIA GPU.
import { describe, expect, it } from 'vitest';
import { cudaDevicesOf } from './cuda-devices.js';
import { GpuChoiceError, chooseGpu, defaultVramBytes } from './gpu-choice.js';
import { formatGpuList, gpuList } from './device-list.js';
import { gpuPlanInput, preparedGpu, resolveGpu } from '../settings/gpu-settings.js';
import { H200_LIST_DEVICES, H200_VULKAN, LAVAPIPE, cudaMachineProbe } from './cuda-machine.test-util.js';

const GiB = 1024 ** 3;
const CUDA_ENV = { CUDA_VISIBLE_DEVICES: '0', GGML_VK_VISIBLE_DEVICES: '', VK_LOADER_DRIVERS_DISABLE: '*' };

describe('CUDA devices (a stand-in H200: this machine has no NVIDIA GPU)', () => {
  it("reads the CUDA devices from ggml's list, with their memory, and names each as a worker from this environment sees it", () => {
    const rpc = { name: 'RPC0[127.0.0.1:50052]', description: 'RPC', type: 'gpu' as const, backend: 'RPC', memoryFree: GiB, memoryTotal: GiB };
    const vk = { name: 'Vulkan0', description: 'NVIDIA H200', type: 'gpu' as const, backend: 'Vulkan', memoryFree: GiB, memoryTotal: GiB };
    expect(cudaDevicesOf([...H200_LIST_DEVICES, rpc, vk], undefined)).toEqual([{ index: 0, name: 'NVIDIA H200', type: 'discrete', memoryTotal: 140 * GiB, memoryFree: 139 * GiB, visibleId: '0' }]);
    // The environment already limits the devices: CUDA0 is the machine's device 3, and the worker must name it so.
    expect(cudaDevicesOf(H200_LIST_DEVICES, '3,1')[0]?.visibleId).toBe('3');
    expect(cudaDevicesOf(null, undefined)).toEqual([]);
  });

  it('a CUDA device is the default over every Vulkan one; the worker sees it alone, as CUDA0, and no Vulkan device', () => {
    const c = chooseGpu(cudaMachineProbe([LAVAPIPE, H200_VULKAN]), null)!;
    expect(c).toMatchObject({ backend: 'CUDA', ggmlName: 'CUDA0', software: false, env: CUDA_ENV });
    expect(c.device.name).toBe('NVIDIA H200');
    // A CUDA-only build (no Vulkan backend) chooses it as well.
    expect(chooseGpu(cudaMachineProbe([]), null)?.backend).toBe('CUDA');
    expect(chooseGpu(cudaMachineProbe([], '2'), null)?.env.CUDA_VISIBLE_DEVICES).toBe('2');
  });

  it('--gpu cuda:N (or CUDAN) picks a CUDA device, a name picks CUDA first; 0 and llvmpipe pick Vulkan devices as before', () => {
    const probe = cudaMachineProbe([LAVAPIPE, H200_VULKAN]);
    expect(chooseGpu(probe, 'cuda:0')).toMatchObject({ backend: 'CUDA', ggmlName: 'CUDA0' });
    expect(chooseGpu(probe, 'CUDA0')?.backend).toBe('CUDA');
    expect(chooseGpu(probe, 'h200')?.backend).toBe('CUDA');
    expect(chooseGpu(probe, '0')).toMatchObject({ backend: 'Vulkan', ggmlName: 'Vulkan0', software: true, device: LAVAPIPE });
    expect(chooseGpu(probe, 'llvmpipe')?.device).toBe(LAVAPIPE);
    expect(chooseGpu(probe, '1')).toMatchObject({ backend: 'Vulkan', device: H200_VULKAN, env: { GGML_VK_VISIBLE_DEVICES: '1' } });
    expect(chooseGpu(probe, 'vulkan:1')?.device).toBe(H200_VULKAN);
    expect(chooseGpu(probe, 'none')).toBeNull();
    expect(() => chooseGpu(probe, 'cuda:1')).toThrow(GpuChoiceError);
    expect(() => chooseGpu(probe, 'cuda:1')).toThrow(/cuda:0: NVIDIA H200 \(CUDA\)/);
  });

  it('the VRAM budget and the plan: the CUDA device\'s free memory less the margin, on CUDA0', () => {
    const probe = cudaMachineProbe();
    const r = resolveGpu({ gpu: null, vramBytes: null }, probe);
    expect(r.vramBytes).toBe(defaultVramBytes({ memoryFree: 139 * GiB, memoryTotal: 140 * GiB }));
    expect(gpuPlanInput(r)).toEqual({ vramBytes: r.vramBytes, gpuDevice: 'CUDA0' });
    expect(preparedGpu(r)).toMatchObject({ device: 'CUDA0', name: 'NVIDIA H200', index: 0, software: false, env: CUDA_ENV });
  });

  it('`devices` lists them in a group of their own, with the --gpu value, the default and the worker\'s variables', () => {
    const l = gpuList(cudaMachineProbe([LAVAPIPE]), null);
    expect(l.devices.map((d) => [d.backend, d.index, d.gpu, d.software, d.default])).toEqual([
      ['Vulkan', 0, '0', true, false],
      ['CUDA', 0, 'cuda:0', false, true],
    ]);
    expect(l.devices[1]).toMatchObject({ name: 'NVIDIA H200', type: 'discrete', memoryFree: 139 * GiB, memoryTotal: 140 * GiB, env: CUDA_ENV });
    expect(l.devices[0]?.env).toEqual({ GGML_VK_VISIBLE_DEVICES: '0', GGML_VK_DISABLE_F16: '1', GGML_VK_DISABLE_COOPMAT: '1' });
    const text = formatGpuList(l);
    expect(text).toMatch(/^GPUs \(Vulkan\)\n {3}0 {2}llvmpipe .*software/);
    expect(text).toMatch(/\n\nGPUs \(CUDA\)\n {2}cuda:0 {2}NVIDIA H200 {2}\[discrete, default\]\n {6}memory 139\.0 GiB free of 140\.0 GiB/);
    expect(text).not.toMatch(/No hardware GPU/);
    // A CUDA-only build: the CUDA group alone.
    expect(formatGpuList(gpuList(cudaMachineProbe([]), null))).toMatch(/^GPUs \(CUDA\)\n {2}cuda:0 {2}NVIDIA H200/);
  });
});
