// Which GPU a run uses, and the worker environment that gives ggml that one device (pure).
// ggml's Vulkan backend lists only discrete and integrated GPUs unless GGML_VK_VISIBLE_DEVICES
// names devices by their index in the Vulkan loader's order; its CUDA backend sees what
// CUDA_VISIBLE_DEVICES leaves visible. Both are read once, when the backends start in the
// worker, so the device is chosen here, before the worker starts: by default the first CUDA
// device (llama.cpp, too, prefers CUDA where a card is both), else the first hardware Vulkan
// GPU; a software device (Mesa's lavapipe, type cpu: a CPU pretending to be a GPU, slower than
// ggml's own CPU backend) only when named; none with `--gpu none`. The one visible device is
// then ggml's Vulkan0 or CUDA0.
import { GGML_CUDA_DEVICE, cudaWorkerEnv, type CudaDevice } from './cuda-devices.js';

export type VulkanDeviceType = 'discrete' | 'integrated' | 'virtual' | 'cpu' | 'other';

/** A Vulkan physical device as the loader lists it (native vulkanDevices()). */
export interface VulkanDevice {
  /** Position in vkEnumeratePhysicalDevices: what GGML_VK_VISIBLE_DEVICES names. */
  readonly index: number;
  readonly name: string;
  readonly type: VulkanDeviceType;
  readonly apiVersion: string;
  /** Device-local heaps as ggml counts them, and what the driver's budget leaves free. */
  readonly memoryTotal: number;
  readonly memoryFree: number;
}

/** What the GPU probe found: the Vulkan loader's devices (none on a build without the Vulkan backend) and ggml's CUDA devices. */
export interface GpuProbe {
  /** The addon was built with ggml's Vulkan backend. */
  readonly built: boolean;
  /** Why there is no device list (no driver, no backend, the probe failed), else null. */
  readonly error: string | null;
  readonly devices: readonly VulkanDevice[];
  /** ggml's CUDA devices (none on a build without the CUDA backend): their own index space. */
  readonly cuda: readonly CudaDevice[];
}

export type GpuBackend = 'Vulkan' | 'CUDA';

export interface GpuChoice {
  readonly backend: GpuBackend;
  readonly device: VulkanDevice | CudaDevice;
  /** ggml's name for it in the worker: the only visible device is Vulkan0 or CUDA0. */
  readonly ggmlName: string;
  readonly software: boolean;
  /** Variables the worker starts with (never set on this process). */
  readonly env: Readonly<Record<string, string>>;
}

/** `--gpu none`: nothing offloaded. */
export const NO_GPU = 'none';

/** The ggml name of the chosen device inside the worker. */
export const GGML_VULKAN_DEVICE = 'Vulkan0';

/** The variables a chosen device's worker may be started with (the app takes no others from its child's answer). */
export const GPU_WORKER_ENV_KEY = /^(GGML_VK_[A-Z0-9_]+|CUDA_VISIBLE_DEVICES|VK_LOADER_DRIVERS_DISABLE)$/;

export class GpuChoiceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GpuChoiceError';
  }
}

/** A CPU-type device (lavapipe, SwiftShader): used only when asked for by name. */
export function isSoftware(d: Pick<VulkanDevice, 'type'>): boolean {
  return d.type === 'cpu';
}

/** What `--gpu` takes to pick a device (`ramforge devices` prints it): a Vulkan index as it is, `cuda:N` for CUDA. */
export function gpuFlagValue(backend: GpuBackend, index: number): string {
  return backend === 'CUDA' ? `cuda:${index}` : String(index);
}

function listText(probe: GpuProbe | null): string {
  const vulkan = (probe?.devices ?? []).map((d) => `${d.index}: ${d.name} (${d.type}${isSoftware(d) ? ', software' : ''})`);
  const cuda = (probe?.cuda ?? []).map((d) => `${gpuFlagValue('CUDA', d.index)}: ${d.name} (CUDA)`);
  const all = [...vulkan, ...cuda];
  if (all.length === 0) return probe?.error ? `no GPU (${probe.error})` : 'no GPU';
  return all.join('; ');
}

function vulkanChoice(device: VulkanDevice): GpuChoice {
  return { backend: 'Vulkan', device, ggmlName: GGML_VULKAN_DEVICE, software: isSoftware(device), env: gpuWorkerEnv(device) };
}

function cudaChoice(device: CudaDevice): GpuChoice {
  return { backend: 'CUDA', device, ggmlName: GGML_CUDA_DEVICE, software: false, env: cudaWorkerEnv(device) };
}

/**
 * `--gpu` names a device: `cuda:N` (or ggml's `CUDAN`) a CUDA device, a bare index or `vulkan:N`
 * a Vulkan one (as before CUDA was listed), else (part of) its name, case-insensitively, CUDA's
 * devices first (the same card under both backends goes where the default would put it).
 */
function named(probe: GpuProbe | null, wanted: string): GpuChoice | null {
  const vulkan = probe?.devices ?? [];
  const cuda = probe?.cuda ?? [];
  const c = /^cuda:?(\d+)$/i.exec(wanted);
  if (c) {
    const d = cuda.find((x) => x.index === Number(c[1]));
    return d ? cudaChoice(d) : null;
  }
  const v = /^(?:vulkan:?)?(\d+)$/i.exec(wanted);
  if (v) {
    const d = vulkan.find((x) => x.index === Number(v[1]));
    return d ? vulkanChoice(d) : null;
  }
  const part = wanted.toLowerCase();
  const byCuda = cuda.find((x) => x.name.toLowerCase().includes(part));
  if (byCuda) return cudaChoice(byCuda);
  const byVulkan = vulkan.find((x) => x.name.toLowerCase().includes(part));
  return byVulkan ? vulkanChoice(byVulkan) : null;
}

/**
 * The device a run uses: `wanted` null = the first CUDA device, else the first hardware Vulkan
 * GPU (none if there is neither), 'none' = none, else the device it names (a name that matches
 * nothing is an error).
 */
export function chooseGpu(probe: GpuProbe | null, wanted: string | null): GpuChoice | null {
  if (wanted === NO_GPU) return null;
  if (wanted === null) {
    const cuda = probe?.cuda[0];
    if (cuda) return cudaChoice(cuda);
    const hardware = (probe?.devices ?? []).find((d) => !isSoftware(d));
    return hardware ? vulkanChoice(hardware) : null;
  }
  const choice = named(probe, wanted);
  if (!choice) throw new GpuChoiceError(`no GPU matches '${wanted}': ${listText(probe)} (ramforge devices lists them)`);
  return choice;
}

/**
 * The worker's variables for one device. A software device also gets what llama.cpp's own CI
 * runs lavapipe with: no FP16 shaders and no cooperative matrices (lavapipe's are slow or
 * missing, and the results are checked against the CPU there).
 */
export function gpuWorkerEnv(d: VulkanDevice): Record<string, string> {
  return { GGML_VK_VISIBLE_DEVICES: String(d.index), ...(isSoftware(d) ? { GGML_VK_DISABLE_F16: '1', GGML_VK_DISABLE_COOPMAT: '1' } : {}) };
}

const MiB = 1024 * 1024;

/**
 * What the budget leaves free on the device: what ggml's Vulkan backend holds beyond llama.cpp's
 * ledger (weights, KV, compute buffers) — staging and pre-allocated matmul buffers, pipelines —
 * and the driver's own. Measured on lavapipe, whose device memory is this process's anonymous
 * memory: an 86 MiB model wholly offloaded (ctx 512, three prompt passes) grew the process by
 * 181.8 MB against a ledger of 168.8 MB, so about 13 MB outside the ledger. A real GPU's driver
 * and other programs take more (their use is already out of the free figure where the driver
 * reports a budget); llama.cpp's own --fit keeps 1 GiB. 256 MiB or 5 % of the device, whichever
 * is more, covers the measured part twenty times over and leaves most of a small card usable.
 */
export const VRAM_MARGIN_MIN_BYTES = 256 * MiB;
export const VRAM_MARGIN_FRACTION = 0.05;

/** The default VRAM budget: the device's free memory less the margin. */
export function defaultVramBytes(d: Pick<VulkanDevice, 'memoryFree' | 'memoryTotal'>): number {
  return Math.max(0, Math.floor(d.memoryFree - Math.max(VRAM_MARGIN_MIN_BYTES, VRAM_MARGIN_FRACTION * d.memoryTotal)));
}
