// `ramforge devices`: the machine's GPUs as one list (pure) — the Vulkan loader's devices, each
// with the memory ggml reports for it, whether it is a software device, and which one a run
// uses by default. The app shows the same list.
import { formatBytes } from '../size.js';
import { chooseGpu, defaultVramBytes, isSoftware, type GpuProbe, type VulkanDeviceType } from './gpu-choice.js';

/** One of ggml's devices (native listDevices()). */
export interface GgmlDeviceInfo {
  readonly name: string;
  readonly description: string;
  readonly memoryFree: number;
  readonly memoryTotal: number;
}

export interface GpuListEntry {
  /** The Vulkan loader's index (`--gpu INDEX` names it). */
  readonly index: number;
  readonly name: string;
  readonly type: VulkanDeviceType;
  /** A CPU-type device: used only when `--gpu` names it. */
  readonly software: boolean;
  /** As ggml reports it (null where ggml did not list the device). */
  readonly memoryTotal: number | null;
  readonly memoryFree: number | null;
  /** What `--vram` defaults to on this device: free memory less the margin. */
  readonly defaultVramBytes: number | null;
  /** The device a run uses when `--gpu` is not given. */
  readonly default: boolean;
}

export interface GpuList {
  readonly schemaVersion: 1;
  /** The build has ggml's Vulkan backend. */
  readonly vulkanBuilt: boolean;
  /** Why the list is empty or partial, else null. */
  readonly error: string | null;
  readonly devices: GpuListEntry[];
}

/** ggml's devices with every Vulkan device visible are Vulkan0.. in the loader's order. */
export function gpuList(probe: GpuProbe, ggml: readonly GgmlDeviceInfo[] | null, ggmlError: string | null = null): GpuList {
  const def = chooseGpu(probe, null);
  const devices = probe.devices.map((d, i): GpuListEntry => {
    const g = ggml?.find((x) => x.name === `Vulkan${i}`) ?? null;
    const free = g?.memoryFree ?? null;
    const total = g?.memoryTotal ?? null;
    return {
      index: d.index,
      name: d.name,
      type: d.type,
      software: isSoftware(d),
      memoryTotal: total,
      memoryFree: free,
      defaultVramBytes: free !== null && total !== null ? defaultVramBytes({ memoryFree: free, memoryTotal: total }) : null,
      default: def?.device.index === d.index,
    };
  });
  return { schemaVersion: 1, vulkanBuilt: probe.built, error: probe.error ?? ggmlError, devices };
}

export function formatGpuList(l: GpuList): string {
  if (!l.vulkanBuilt) return `No GPU backend in this build: ${l.error ?? 'built without Vulkan'}.\nEvery run uses the CPU.\n`;
  if (l.devices.length === 0) return `No Vulkan device${l.error ? ` (${l.error})` : ''}. Every run uses the CPU.\n`;
  const mem = (n: number | null): string => (n === null ? '—' : formatBytes(n));
  const out = ['GPUs (Vulkan)'];
  for (const d of l.devices) {
    const tags = [d.type, ...(d.software ? ['software: used only with --gpu naming it'] : []), ...(d.default ? ['default'] : [])];
    out.push(`  ${String(d.index).padStart(2)}  ${d.name}  [${tags.join(', ')}]`);
    out.push(`      memory ${mem(d.memoryFree)} free of ${mem(d.memoryTotal)} (as ggml reports it); --vram defaults to ${mem(d.defaultVramBytes)}`);
  }
  if (!l.devices.some((d) => d.default)) out.push('', 'No hardware GPU: runs use the CPU unless --gpu names a device.');
  if (l.error) out.push('', `Note: ${l.error}`);
  return out.join('\n') + '\n';
}
