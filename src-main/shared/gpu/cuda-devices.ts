// ggml's own device list and the CUDA devices in it (pure). The Vulkan loader can be asked for
// its devices without starting ggml; CUDA devices are known only from ggml's list (native
// listDevices(): every registered backend's devices, each with its type and the memory the
// backend reports). In a process that sees every CUDA device, ggml names them CUDA0, CUDA1, … in
// the CUDA runtime's order, which is also the order CUDA_VISIBLE_DEVICES counts in. A worker is
// given one of them through CUDA_VISIBLE_DEVICES, so inside it the device is always CUDA0.

/** One of ggml's devices (native listDevices()). */
export interface GgmlDeviceInfo {
  /** ggml's name: CPU, Vulkan0, CUDA0, RPC0[host:port]… */
  readonly name: string;
  /** The device's own name (NVIDIA H200, llvmpipe (LLVM 15.0.6, 256 bits), the CPU's model). */
  readonly description: string;
  readonly type: 'cpu' | 'gpu' | 'igpu' | 'accel';
  /** The backend that registered it: CPU, Vulkan, CUDA, RPC… */
  readonly backend: string;
  readonly memoryFree: number;
  readonly memoryTotal: number;
}

export interface CudaDevice {
  /** N in ggml's CUDA<N> with every device visible: what `--gpu cuda:N` names. */
  readonly index: number;
  readonly name: string;
  /** ggml's 'gpu' / 'igpu' in the Vulkan loader's words, so the device list has one vocabulary. */
  readonly type: 'discrete' | 'integrated';
  readonly memoryTotal: number;
  readonly memoryFree: number;
  /**
   * What CUDA_VISIBLE_DEVICES names this device by in a worker started from this environment:
   * the index, or, where the environment already limits the devices, its own entry of that list
   * (the runtime counts visible devices only, so index 1 of "2,3" is the machine's device 3).
   */
  readonly visibleId: string;
}

/** The Vulkan loader's own switch (loader ≥ 1.3.234): no driver is loaded in the process. */
export const NO_VULKAN_DRIVERS_ENV: Readonly<Record<string, string>> = { VK_LOADER_DRIVERS_DISABLE: '*' };

/** The CUDA runtime sees no device: ggml's CUDA backend registers none, and touches no GPU. */
export const NO_CUDA_DEVICES_ENV: Readonly<Record<string, string>> = { CUDA_VISIBLE_DEVICES: '' };

/** ggml's name of the chosen CUDA device inside its worker, which sees that device alone. */
export const GGML_CUDA_DEVICE = 'CUDA0';

/**
 * The CUDA devices of ggml's list, listed by a process started with `visibleEnv` as its
 * CUDA_VISIBLE_DEVICES (undefined: not set, every device visible).
 */
export function cudaDevicesOf(ggml: readonly GgmlDeviceInfo[] | null, visibleEnv: string | undefined): CudaDevice[] {
  const visible = visibleEnv === undefined ? null : visibleEnv.split(',').map((s) => s.trim());
  return (ggml ?? []).flatMap((d): CudaDevice[] => {
    const m = /^CUDA(\d+)$/.exec(d.name);
    if (d.backend !== 'CUDA' || !m || (d.type !== 'gpu' && d.type !== 'igpu')) return [];
    const index = Number(m[1]);
    return [
      {
        index,
        name: d.description || d.name,
        type: d.type === 'igpu' ? 'integrated' : 'discrete',
        memoryTotal: d.memoryTotal,
        memoryFree: d.memoryFree,
        visibleId: visible?.[index] || String(index),
      },
    ];
  });
}

/**
 * The worker's variables for a CUDA device: that device alone (so it is CUDA0 there), and no
 * Vulkan device, so a card that both backends see is not offered to llama.cpp twice; the Vulkan
 * loader then loads no driver at all in that worker (NVIDIA's Vulkan driver would cost memory
 * under the cap and be used for nothing).
 */
export function cudaWorkerEnv(d: Pick<CudaDevice, 'visibleId'>): Record<string, string> {
  return { CUDA_VISIBLE_DEVICES: d.visibleId, GGML_VK_VISIBLE_DEVICES: '', ...NO_VULKAN_DRIVERS_ENV };
}
