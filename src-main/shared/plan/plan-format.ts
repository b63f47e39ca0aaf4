// Human rendering of `ramforge plan`: budget, verdict, memory ledger with formulas, the tier
// of every layer (consecutive layers of one tier grouped), and the predictions.
import { formatBytes } from '../size.js';
import type { MemoryPlan, Quantity } from './plan-types.js';

function rows(items: [string, Quantity, 'bytes' | 'tok/s' | 'share'][]): string[] {
  const w = Math.max(...items.map(([l]) => l.length));
  return items.map(([label, qty, unit]) => {
    const v = qty.value === null ? '—' : unit === 'bytes' ? formatBytes(qty.value) : unit === 'share' ? `${(100 * qty.value).toFixed(1)} %` : `${qty.value.toFixed(2)} tok/s`;
    return `  ${label.padEnd(w)}  ${v.padStart(11)}   ${qty.formula}`;
  });
}

export function formatPlan(p: MemoryPlan): string {
  const i = p.input;
  const out: string[] = [];
  out.push(`${p.model.name ?? '(no name)'} (${p.model.architecture ?? '—'}), ${p.model.blockCount} layers, ${formatBytes(p.model.tensorBytes)} of weights`);
  out.push(
    `Budget: RAM ${formatBytes(i.ramBytes)} · VRAM ${i.vramBytes === null ? '—' : formatBytes(i.vramBytes)} · ctx ${i.ctx} · KV ${i.kvTypeBytes} B/elem · prefetch depth ${i.prefetchDepth} · disk ${formatBytes(i.diskBandwidthBytesPerS)}/s (${i.diskBandwidthSource})`,
  );
  out.push('', `Verdict: ${p.verdict.toUpperCase()} — ${p.reason}`);
  const Q = p.quantities;
  out.push('', 'Memory');
  out.push(
    ...rows([
      ['persistent tensors', Q.persistentBytes, 'bytes'],
      ['KV cache per layer', Q.kvBytesPerLayer, 'bytes'],
      ['KV cache in RAM', Q.kvRamBytes, 'bytes'],
      ['compute buffer', Q.computeBufferBytes, 'bytes'],
      ['runtime overhead', Q.runtimeOverheadBytes, 'bytes'],
      ['embeddings context', Q.embeddingsBytes, 'bytes'],
      ['fixed RAM', Q.fixedRamBytes, 'bytes'],
      ['resident layer weights', Q.pinnedBytes, 'bytes'],
      ['streaming reserve', Q.streamingReserveBytes, 'bytes'],
      ['headroom', Q.headroomBytes, 'bytes'],
      ['RAM used', Q.ramUsedBytes, 'bytes'],
      ...(i.vramBytes !== null ? ([['VRAM used', Q.vramUsedBytes, 'bytes']] as [string, Quantity, 'bytes'][]) : []),
      ['minimum RAM cap', Q.minimumRamBytes, 'bytes'],
      ['full residency', Q.fullResidencyRamBytes, 'bytes'],
    ]),
  );
  out.push('', 'Layers');
  const groups: { tier: string; from: number; to: number; bytes: number; streamed: number; n: number }[] = [];
  for (const l of p.layers) {
    const g = groups[groups.length - 1];
    if (g && g.tier === l.tier && l.index === g.to + 1) {
      g.to = l.index;
      g.bytes += l.bytes;
      g.streamed += l.streamedBytes;
      g.n++;
    } else groups.push({ tier: l.tier, from: l.index, to: l.index, bytes: l.bytes, streamed: l.streamedBytes, n: 1 });
  }
  for (const g of groups) {
    const range = g.from === g.to ? `${g.from}` : `${g.from}–${g.to}`;
    out.push(`  ${range.padEnd(9)} ${g.tier.padEnd(9)} ${String(g.n).padStart(4)} layers  ${formatBytes(g.bytes).padStart(11)}${g.streamed > 0 ? `  (${formatBytes(g.streamed)} of it streamed)` : ''}`);
  }
  if (p.stream) {
    out.push(`  streamed: ${p.stream.tensors.length} tensors through a ${formatBytes(p.stream.windowBytes)} window; every other weight is locked in RAM`);
  }
  if (p.moe) out.push(...expertLines(p));
  if (p.gpu) out.push(...tierLines(p));
  if (p.remote) out.push(...remoteLines(p));
  out.push('', 'Per token');
  out.push(
    ...rows([
      ['bytes read from storage', Q.bytesReadPerToken, 'bytes'],
      ['floor (any schedule)', Q.floorBytesPerToken, 'bytes'],
      ['predicted decode speed', Q.predictedDecodeTokS, 'tok/s'],
    ]),
  );
  if (p.notes.length) out.push('', 'Notes', ...p.notes.map((n) => `  - ${n}`));
  return out.join('\n') + '\n';
}

/** The expert cache of a mixture of experts: what is locked, what is cached, what it hits. */
function expertLines(p: MemoryPlan): string[] {
  const m = p.moe as NonNullable<MemoryPlan['moe']>;
  const Q = m.quantities;
  return [
    '',
    `Experts: ${m.expertCount} per layer in ${m.layers.length} layers, ${m.expertUsedCount} used per token${m.expertSharedCount > 0 ? `, ${m.expertSharedCount} shared` : ''}; cache ${m.cacheExpertsPerLayer} of ${m.expertCount} per layer in RAM${m.deviceTier ? `, ${m.deviceTier.slotsPerLayer} in VRAM` : ''}; routing: ${m.routing.description}`,
    ...rows([
      ['bytes per expert', Q.bytesPerExpert, 'bytes'],
      ['dense layer weights', Q.denseLayerBytes, 'bytes'],
      ['locked (dense part)', Q.lockedBytes, 'bytes'],
      ['staging', Q.stagingBytes, 'bytes'],
      ['expert cache', Q.expertCacheBytes, 'bytes'],
      ['active per token', Q.activeBytesPerToken, 'bytes'],
      ['cache hit rate', Q.hitRate, 'share'],
      ...(m.deviceTier ? [['VRAM tier hit rate', m.deviceTier.hitRate, 'share'] as [string, typeof Q.hitRate, 'share']] : []),
      ['minimum RAM cap (experts)', Q.minimumRamBytes, 'bytes'],
      ['tensor schedule reads', Q.tensorScheduleBytesPerToken, 'bytes'],
    ]),
  ];
}

/** The three tiers side by side, with a VRAM budget: the device's share, RAM's locked share, the streamed rest. */
function tierLines(p: MemoryPlan): string[] {
  const g = p.gpu as NonNullable<MemoryPlan['gpu']>;
  const Q = p.quantities;
  const tok = Q.predictedDecodeTokS.value;
  const dev = (g.quantities.headBytes.value ?? 0) + (g.quantities.layerWeightBytes.value ?? 0);
  const what = g.mode === 'none' ? 'nothing offloaded' : g.mode === 'dense-first' ? `head + dense part of ${g.layers.length} layers (${g.expertLayers.length > 0 ? `and the experts of ${g.expertLayers.length}; the other experts in RAM` : 'experts in RAM'})` : `head + ${g.layers.length} layers`;
  return [
    '',
    'Tiers',
    `  VRAM     ${formatBytes(dev).padStart(11)} of weights on ${g.device ?? 'the GPU'} (${what}; n_gpu_layers ${g.gpuLayers}), ${formatBytes(Q.vramUsedBytes.value ?? 0)} of ${formatBytes(p.input.vramBytes ?? 0)} used with KV and compute`,
    `  RAM      ${formatBytes(Q.pinnedBytes.value ?? 0).padStart(11)} of layer weights locked`,
    `  storage  ${formatBytes(Q.bytesReadPerToken.value ?? 0).padStart(11)} streamed per token${tok !== null ? ` → ≈ ${tok.toFixed(2)} tok/s predicted` : ''}`,
  ];
}

/** Layers on other machines (`--rpc`): what each node holds, and what a token costs on the network. */
function remoteLines(p: MemoryPlan): string[] {
  const r = p.remote as NonNullable<MemoryPlan['remote']>;
  const span = (ls: number[]) => (ls.length === 0 ? 'nothing (too small for a layer)' : `layers ${ls[0]}–${ls[ls.length - 1]}`);
  return [
    '',
    'Other machines (llama.cpp RPC; trusted networks only)',
    ...r.nodes.map(
      (n) =>
        `  ${n.endpoint.padEnd(21)} ${span(n.layers)}${n.headBytes > 0 ? ' + the output head' : ''}: ${formatBytes(n.weightBytes + n.headBytes)} of weights + KV ${formatBytes(n.kvBytes)}` +
        ` within ${formatBytes(n.budgetBytes)} (offers ${formatBytes(n.freeBytes)} free of ${formatBytes(n.totalBytes)})`,
    ),
    `  network  ${formatBytes(r.networkBytesPerToken.value ?? 0)} per token; ${((r.remoteSecondsPerToken.value ?? 0) * 1000).toFixed(1)} ms waited on the nodes per token (${r.remoteSecondsPerToken.formula})`,
  ];
}
