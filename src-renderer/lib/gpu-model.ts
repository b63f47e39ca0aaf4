// The GPU as the UI reads it, defensively from unknown JSON: the device list
// (`api.listDevices()`, shared/gpu/device-list.ts GpuList) and a plan's VRAM tier (MemoryPlan.gpu).
import { arr, field, isObj, num, numLike, str } from './fields.js';

export interface GpuDeviceRow {
  /** Vulkan or CUDA: each backend numbers its devices on its own. */
  backend: string;
  index: number;
  /** What the settings' `gpu` takes to pick it (`--gpu`): the Vulkan index, or cuda:N. */
  gpu: string;
  name: string;
  type: string;
  software: boolean;
  memoryFree: number | null;
  memoryTotal: number | null;
  defaultVramBytes: number | null;
  isDefault: boolean;
}

export interface GpuListInfo {
  built: boolean;
  error: string | null;
  devices: GpuDeviceRow[];
}

export function asGpuList(raw: unknown): GpuListInfo {
  const devices = arr(raw, 'devices').flatMap((d): GpuDeviceRow[] => {
    const index = num(d, 'index');
    const name = str(d, 'name');
    if (index === null || name === null) return [];
    return [
      {
        backend: str(d, 'backend') ?? 'Vulkan',
        index,
        gpu: str(d, 'gpu') ?? String(index),
        name,
        type: str(d, 'type') ?? 'other',
        software: field(d, 'software') === true,
        memoryFree: num(d, 'memoryFree'),
        memoryTotal: num(d, 'memoryTotal'),
        defaultVramBytes: num(d, 'defaultVramBytes'),
        isDefault: field(d, 'default') === true,
      },
    ];
  });
  return { built: field(raw, 'vulkanBuilt') === true, error: str(raw, 'error'), devices };
}

/** The plan's VRAM tier (MemoryPlan.gpu). */
export interface PlanGpu {
  device: string | null;
  gpuLayers: number;
  layers: number;
  mode: string;
  cpuTensors: string[];
  /** 'dense-first': layers whose experts are on the device too. */
  expertLayers: number;
  budgetBytes: number | null;
  usedBytes: number | null;
  weightBytes: number | null;
  /** The expert cache's VRAM tier: expert slots in every layer (null without one). */
  expertSlots: number | null;
}

export function planGpu(raw: unknown): PlanGpu | null {
  if (!isObj(raw)) return null;
  const q = field(raw, 'quantities');
  const v = (k: string): number | null => numLike(field(q, k));
  const head = v('headBytes');
  const layerW = v('layerWeightBytes');
  return {
    device: str(raw, 'device'),
    gpuLayers: num(raw, 'gpuLayers') ?? 0,
    layers: arr(raw, 'layers').length,
    mode: str(raw, 'mode') ?? 'none',
    cpuTensors: arr(raw, 'cpuTensors').filter((x): x is string => typeof x === 'string'),
    expertLayers: arr(raw, 'expertLayers').length,
    budgetBytes: v('budgetBytes'),
    usedBytes: v('usedBytes'),
    expertSlots: num(field(raw, 'deviceExperts'), 'slotsPerLayer'),
    weightBytes: head === null && layerW === null ? null : (head ?? 0) + (layerW ?? 0),
  };
}

/** One line for the plan view: what the device holds and what it costs there. */
export function planGpuText(g: PlanGpu, fmt: (n: number | null) => string): string {
  if (g.gpuLayers === 0) return `VRAM ${fmt(g.budgetBytes)}${g.device ? ` on ${g.device}` : ''}: nothing fits beside the compute buffer and the output head`;
  const experts =
    g.expertSlots !== null
      ? `and ${g.expertSlots} expert slots in each layer, filled from RAM as the routers choose`
      : g.expertLayers > 0
        ? `the experts of the last ${g.expertLayers} too, the others stay in RAM`
        : 'experts stay in RAM';
  const what = g.mode === 'dense-first' ? `the output head and the dense part of ${g.layers} layers (${experts})` : `the output head and ${g.layers} layers`;
  return `VRAM${g.device ? ` on ${g.device}` : ''}: ${what}, ${fmt(g.weightBytes)} of weights; ${fmt(g.usedBytes)} of ${fmt(g.budgetBytes)} with KV and compute (n_gpu_layers ${g.gpuLayers})`;
}
