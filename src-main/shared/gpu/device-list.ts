// `ramforge devices`: the machine's GPUs as one list (pure) — the Vulkan loader's devices, each
// with the memory ggml reports for it and whether it is a software device, then ggml's CUDA
// devices, and which one a run uses by default. The app shows the same list.
import { formatBytes } from '../size.js';
import { chooseGpu, defaultVramBytes, gpuFlagValue, isSoftware, type GpuBackend, type GpuProbe, type VulkanDeviceType } from './gpu-choice.js';
import type { CudaDevice, GgmlDeviceInfo } from './cuda-devices.js';

export type { GgmlDeviceInfo } from './cuda-devices.js';

export interface GpuListEntry {
  readonly backend: GpuBackend;
  /** The device's index in its backend's own space: the Vulkan loader's, or N in ggml's CUDA<N>. */
  readonly index: number;
  /** What `--gpu` takes to pick it: the Vulkan index (`0`), or `cuda:N`. */
  readonly gpu: string;
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
  /** The variables a worker (or llama.cpp's own tools) using this device starts with. */
  readonly env: Readonly<Record<string, string>>;
}

export interface GpuList {
  readonly schemaVersion: 1;
  /** The build has ggml's Vulkan backend. */
  readonly vulkanBuilt: boolean;
  /** Why the list is empty or partial, else null. */
  readonly error: string | null;
  readonly devices: GpuListEntry[];
}

function withMemory(free: number | null, total: number | null): Pick<GpuListEntry, 'memoryFree' | 'memoryTotal' | 'defaultVramBytes'> {
  return { memoryTotal: total, memoryFree: free, defaultVramBytes: free !== null && total !== null ? defaultVramBytes({ memoryFree: free, memoryTotal: total }) : null };
}

function cudaEntry(d: CudaDevice, def: { backend: GpuBackend; index: number } | null, probe: GpuProbe): GpuListEntry {
  const c = chooseGpu(probe, gpuFlagValue('CUDA', d.index));
  const isDefault = def?.backend === 'CUDA' && def.index === d.index;
  return { backend: 'CUDA', index: d.index, gpu: gpuFlagValue('CUDA', d.index), name: d.name, type: d.type, software: false, ...withMemory(d.memoryFree, d.memoryTotal), default: isDefault, env: c?.env ?? {} };
}

/** ggml's devices with every Vulkan device visible are Vulkan0.. in the loader's order; CUDA devices come with their memory. */
export function gpuList(probe: GpuProbe, ggml: readonly GgmlDeviceInfo[] | null, ggmlError: string | null = null): GpuList {
  const chosen = chooseGpu(probe, null);
  const def = chosen ? { backend: chosen.backend, index: chosen.device.index } : null;
  const vulkan = probe.devices.map((d, i): GpuListEntry => {
    const g = ggml?.find((x) => x.name === `Vulkan${i}`) ?? null;
    const c = chooseGpu(probe, gpuFlagValue('Vulkan', d.index));
    const isDefault = def?.backend === 'Vulkan' && def.index === d.index;
    return { backend: 'Vulkan', index: d.index, gpu: gpuFlagValue('Vulkan', d.index), name: d.name, type: d.type, software: isSoftware(d), ...withMemory(g?.memoryFree ?? null, g?.memoryTotal ?? null), default: isDefault, env: c?.env ?? {} };
  });
  const cuda = probe.cuda.map((d) => cudaEntry(d, def, probe));
  return { schemaVersion: 1, vulkanBuilt: probe.built, error: probe.error ?? ggmlError, devices: [...vulkan, ...cuda] };
}

function group(title: string, devices: GpuListEntry[]): string[] {
  if (devices.length === 0) return [];
  const mem = (n: number | null): string => (n === null ? '—' : formatBytes(n));
  const out = [title];
  for (const d of devices) {
    const tags = [d.type, ...(d.software ? ['software: used only with --gpu naming it'] : []), ...(d.default ? ['default'] : [])];
    out.push(`  ${d.gpu.padStart(2)}  ${d.name}  [${tags.join(', ')}]`);
    out.push(`      memory ${mem(d.memoryFree)} free of ${mem(d.memoryTotal)} (as ggml reports it); --vram defaults to ${mem(d.defaultVramBytes)}`);
  }
  return out;
}

export function formatGpuList(l: GpuList): string {
  if (l.devices.length === 0) {
    if (!l.vulkanBuilt) return `No GPU backend in this build: ${l.error ?? 'built without Vulkan'}.\nEvery run uses the CPU.\n`;
    return `No Vulkan device${l.error ? ` (${l.error})` : ''}. Every run uses the CPU.\n`;
  }
  const vulkan = group('GPUs (Vulkan)', l.devices.filter((d) => d.backend === 'Vulkan'));
  const cuda = group('GPUs (CUDA)', l.devices.filter((d) => d.backend === 'CUDA'));
  const out = [...vulkan, ...(vulkan.length > 0 && cuda.length > 0 ? [''] : []), ...cuda];
  if (!l.devices.some((d) => d.default)) out.push('', 'No hardware GPU: runs use the CPU unless --gpu names a device.');
  if (l.error) out.push('', `Note: ${l.error}`);
  return out.join('\n') + '\n';
}
