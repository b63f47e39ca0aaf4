// The VRAM tier in `run`'s words on stderr: the device, what llama.cpp allocated there after
// load, beside the budget and the plan's figure.
import { formatBytes } from '../shared/size.js';
import type { PreparedGpu } from '../shared/settings/gpu-settings.js';
import type { LoadParams, ModelInfo } from '../shared/worker-protocol.js';

export function gpuPlanLine(gpu: PreparedGpu, load: LoadParams): string {
  const o = load.offload;
  const what = o ? `n_gpu_layers ${o.layers}${o.cpuTensors?.length ? `, ${o.cpuTensors.join(' ')} kept on the CPU` : ''}` : 'nothing offloaded (the budget holds no layer)';
  return `ramforge: GPU ${gpu.device} = ${gpu.name}${gpu.software ? ' (a software device)' : ''}; VRAM budget ${formatBytes(gpu.vramBytes)} (${gpu.vramSource}); ${what}\n`;
}

export function gpuMemoryLine(gpu: PreparedGpu, load: LoadParams, model: ModelInfo): string {
  const m = model.deviceMemory?.find((d) => d.device === gpu.device);
  if (!m) return `ramforge: ${gpu.device}: llama.cpp reported no buffer on the device\n`;
  const planned = load.offload?.plannedBytes;
  const over = m.totalBytes > gpu.vramBytes ? ' — OVER the budget' : '';
  return (
    `ramforge: ${gpu.device}: ${formatBytes(m.totalBytes)} allocated after load (weights ${formatBytes(m.modelBytes)}, KV ${formatBytes(m.contextBytes)}, compute ${formatBytes(m.computeBytes)}) ` +
    `of the ${formatBytes(gpu.vramBytes)} VRAM budget${planned !== undefined ? `; planned ${formatBytes(planned)}` : ''}${over}\n`
  );
}
