// The dashboard's VRAM tier: what llama.cpp allocated on the GPU after load (measured, from the
// loaded model's info) beside the plan's budget. Nothing when nothing is offloaded.
import { formatBytes } from '../lib/format.js';
import { useStore } from '../store/index.js';
import { Kpi } from './Kpi.js';

export function VramKpi() {
  const dm = useStore((s) => s.engine.model?.deviceMemory ?? null);
  const budget = useStore((s) => s.plan?.gpu?.budgetBytes ?? null);
  const gpuLayers = useStore((s) => s.plan?.gpu?.gpuLayers ?? null);
  // llama.cpp's ledger lists RPC nodes as devices too ("RPC0"…): their memory is the nodes' RAM, not VRAM.
  const gpus = (dm ?? []).filter((x) => !x.device.startsWith('RPC'));
  if (gpus.length === 0) return null;
  const d = gpus[0]!;
  const title = `${d.device}: weights ${formatBytes(d.modelBytes)}, KV ${formatBytes(d.contextBytes)}, compute ${formatBytes(d.computeBytes)} (llama.cpp's ledger after load)${gpuLayers !== null ? `; n_gpu_layers ${gpuLayers}` : ''}`;
  return <Kpi label={`VRAM (${d.device})`} value={`${formatBytes(d.totalBytes)}${budget !== null ? ` / ${formatBytes(budget)}` : ''}`} title={title} testId="kpi-vram" />;
}
