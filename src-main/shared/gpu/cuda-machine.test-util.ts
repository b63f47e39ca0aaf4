// A stand-in for a CUDA machine: this development machine has no NVIDIA GPU, so the tests of the
// CUDA choice are fed what native listDevices() returns on one (an H200 with the CUDA backend
// built, in a process with no Vulkan device visible: the CPU, then ggml's CUDA<N> devices with
// the memory cudaMemGetInfo reports), beside the Vulkan loader's devices of a machine that also
// has Mesa's lavapipe.
import { cudaDevicesOf, type GgmlDeviceInfo } from './cuda-devices.js';
import type { GpuProbe, VulkanDevice } from './gpu-choice.js';

const GiB = 1024 ** 3;

/** native listDevices() on the stand-in machine (GGML_VK_VISIBLE_DEVICES=""). */
export const H200_LIST_DEVICES: GgmlDeviceInfo[] = [
  { name: 'CPU', description: 'Intel(R) Xeon(R) Platinum 8480C', type: 'cpu', backend: 'CPU', memoryFree: 120 * GiB, memoryTotal: 128 * GiB },
  { name: 'CUDA0', description: 'NVIDIA H200', type: 'gpu', backend: 'CUDA', memoryFree: 139 * GiB, memoryTotal: 140 * GiB },
];

export const LAVAPIPE: VulkanDevice = { index: 0, name: 'llvmpipe (LLVM 15.0.6, 256 bits)', type: 'cpu', apiVersion: '1.3.230', memoryTotal: 2 * GiB, memoryFree: 2 * GiB };
/** The same card through NVIDIA's Vulkan driver, where that driver is installed too. */
export const H200_VULKAN: VulkanDevice = { index: 1, name: 'NVIDIA H200', type: 'discrete', apiVersion: '1.4.312', memoryTotal: 140 * GiB, memoryFree: 139 * GiB };

/** The probe of the stand-in machine: these Vulkan devices, and the CUDA ones of H200_LIST_DEVICES. */
export function cudaMachineProbe(vulkan: VulkanDevice[] = [LAVAPIPE], visibleEnv?: string): GpuProbe {
  return { built: vulkan.length > 0, error: null, devices: vulkan, cuda: cudaDevicesOf(H200_LIST_DEVICES, visibleEnv) };
}
