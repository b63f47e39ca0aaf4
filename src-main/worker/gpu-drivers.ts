// Whether a worker may load the machine's GPU drivers. A build with ggml's Vulkan backend
// creates a Vulkan instance in every process that loads the addon, and the Vulkan loader then
// loads every installed driver: measured here, Mesa's lavapipe (LLVM inside) added 13.4 MiB of
// anonymous memory and 45 MiB of mapped files to each worker before a model was opened. A
// worker that offloads nothing to a GPU gets none of that, so a CPU run holds the same memory
// under a cap as a CPU-only build; the loader's own switch (Vulkan loader ≥ 1.3.234) does it.
// A build with ggml's CUDA backend starts the CUDA runtime on every device it sees when the
// addon loads: a worker that offloads nothing sees none (and leaves the cards to the runs that
// use them).
import { NO_CUDA_DEVICES_ENV, NO_VULKAN_DRIVERS_ENV } from '../shared/gpu/cuda-devices.js';

export const NO_GPU_DRIVERS_ENV: Readonly<Record<string, string>> = { ...NO_VULKAN_DRIVERS_ENV, ...NO_CUDA_DEVICES_ENV };

/** The environment a worker starts with for its GPU use. */
export function gpuDriverEnv(useGpu: boolean): Record<string, string> {
  return useGpu ? {} : { ...NO_GPU_DRIVERS_ENV };
}
