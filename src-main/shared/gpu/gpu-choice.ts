// Which GPU a run uses, and the worker environment that gives ggml's Vulkan backend that one
// device (pure). ggml lists only discrete and integrated GPUs unless GGML_VK_VISIBLE_DEVICES
// names devices by their index in the Vulkan loader's order, and it reads the variable once,
// when the backend starts in the worker. So the device is chosen here, before the worker
// starts: the first hardware GPU by default, a software device (Mesa's lavapipe, type cpu:
// a CPU pretending to be a GPU, slower than ggml's own CPU backend) only when named, and none
// with `--gpu none`. The one visible device is then ggml's Vulkan0.

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

/** What the machine's Vulkan loader reported (nothing on a build without the Vulkan backend). */
export interface GpuProbe {
  /** The addon was built with ggml's Vulkan backend. */
  readonly built: boolean;
  /** Why there is no device list (no driver, no backend, the probe failed), else null. */
  readonly error: string | null;
  readonly devices: readonly VulkanDevice[];
}

export interface GpuChoice {
  readonly device: VulkanDevice;
  /** ggml's name for it in the worker: the only visible device is Vulkan0. */
  readonly ggmlName: string;
  readonly software: boolean;
  /** Variables the worker starts with (never set on this process). */
  readonly env: Readonly<Record<string, string>>;
}

/** `--gpu none`: nothing offloaded. */
export const NO_GPU = 'none';

/** The ggml name of the chosen device inside the worker. */
export const GGML_VULKAN_DEVICE = 'Vulkan0';

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

/** `--gpu` names a device by its index, or by (part of) its name, case-insensitively. */
function matches(d: VulkanDevice, wanted: string): boolean {
  if (/^\d+$/.test(wanted)) return d.index === Number(wanted);
  return d.name.toLowerCase().includes(wanted.toLowerCase());
}

function listText(probe: GpuProbe | null): string {
  if (!probe || probe.devices.length === 0) return probe?.error ? `no Vulkan device (${probe.error})` : 'no Vulkan device';
  return probe.devices.map((d) => `${d.index}: ${d.name} (${d.type}${isSoftware(d) ? ', software' : ''})`).join('; ');
}

/**
 * The device a run uses: `wanted` null = the first hardware GPU (none if there is none),
 * 'none' = none, else the device it names (a name that matches nothing is an error).
 */
export function chooseGpu(probe: GpuProbe | null, wanted: string | null): GpuChoice | null {
  if (wanted === NO_GPU) return null;
  const devices = probe?.devices ?? [];
  const device = wanted === null ? devices.find((d) => !isSoftware(d)) : devices.find((d) => matches(d, wanted));
  if (!device) {
    if (wanted === null) return null;
    throw new GpuChoiceError(`no GPU matches '${wanted}': ${listText(probe)} (ramforge devices lists them)`);
  }
  return { device, ggmlName: GGML_VULKAN_DEVICE, software: isSoftware(device), env: gpuWorkerEnv(device) };
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
