// The VRAM tier (pure): which weights go to the GPU under a VRAM budget, in the units llama.cpp
// loads them in. n_gpu_layers = k + 1 puts the output head and the last k blocks on the device
// (llama-model.cpp: i_gpu_start = n_layer + 1 − n_gpu_layers; the output is "layer" n_layer),
// each block with its KV cache; a tensor-name override (`cpuTensors`, what -ot / --cpu-moe do)
// keeps named tensors on the CPU whatever their layer. Per byte, the head and dense weights
// gain most: each is read every token, while an expert is read only when routed. So a mixture
// of experts that does not fit whole puts the dense part of the layers on the device first,
// then, with the room left, the experts of the last layers (every expert of a layer on the
// device: no routing decides what a token finds there), and keeps the other experts in RAM
// (locked or streamed by the expert cache), where a dense model puts whole layers. What the
// device holds is taken out of the RAM view the rest of the plan sees.
import { formatBytes } from '../size.js';
import type { LayerView, ModelView, ViewTensor } from '../gguf/model-view.js';
import { isExpertTensor } from '../gguf/moe-view.js';
import type { GpuPlan, Quantity } from './plan-types.js';

/** llama.cpp's --cpu-moe pattern (LLM_FFN_EXPS_REGEX), with the fused gate_up tensor too. */
export const EXPERT_TENSOR_PATTERN = '\\.ffn_(up|down|gate|gate_up)_exps';

const fb = (n: number): string => formatBytes(n);
const q = (value: number | null, formula: string): Quantity => ({ value, formula });

export interface VramInput {
  /** The VRAM budget: what llama.cpp may allocate on the device (weights, KV, compute). */
  readonly vramBytes: number;
  /** KV bytes of each layer, in layer order. */
  readonly kvPerLayer: readonly number[];
  /** The device's compute buffer (sized as the CPU's: a micro-batch's logits and activations). */
  readonly computeBytes: number;
  /** The device's name, for the plan's text (null when the caller did not say). */
  readonly device?: string | null;
  /**
   * The experts will be served by the expert cache (a RAM budget the model does not fit in): the
   * room the dense part leaves holds a VRAM tier of that cache, slots for every layer's most used
   * experts, instead of every expert of the last layers.
   */
  readonly expertCache?: boolean;
}

export interface VramPlacement {
  readonly gpu: GpuPlan;
  /** The model as RAM sees it: the device's tensors taken out (the head's left as 0-byte markers). */
  readonly ramView: ModelView;
  /** Layers wholly on the device. */
  readonly wholeLayers: ReadonlySet<number>;
  /** Layers whose KV cache lives on the device (every block llama.cpp offloads). */
  readonly kvOnDevice: ReadonlySet<number>;
}

/** The output head's tensors (output.weight, its norm and bias): what n_gpu_layers ≥ 1 puts on the device. */
function isHead(name: string): boolean {
  return name.startsWith('output.') || name.startsWith('output_norm.');
}

/** Bytes the head costs on the device: a tied model's head is token_embd, copied there (llama.cpp duplicates it). */
export function headBytes(view: ModelView): { bytes: number; tied: boolean } {
  const head = view.persistent.tensors.filter((t) => isHead(t.name));
  const tied = !head.some((t) => t.name.startsWith('output.'));
  const embd = tied ? (view.persistent.tensors.find((t) => t.name === 'token_embd.weight')?.nbytes ?? 0) : 0;
  return { bytes: sum(head.map((t) => t.nbytes)) + embd, tied };
}

/** The last blocks, from the end, while `cost` fits in `room`: how many, and their total. */
function lastThatFit(layers: readonly LayerView[], cost: (i: number) => number, room: number): { n: number; bytes: number } {
  let n = 0;
  let bytes = 0;
  for (let i = layers.length - 1; i >= 0; i--) {
    const c = cost(i);
    if (bytes + c > room) break;
    bytes += c;
    n++;
  }
  return { n, bytes };
}

export function placeVram(view: ModelView, input: VramInput): VramPlacement {
  const layers = view.layers;
  const L = layers.length;
  const head = headBytes(view);
  const kv = (i: number): number => input.kvPerLayer[i] ?? 0;
  const expertBytes = (l: LayerView): number => sum(l.tensors.filter((t) => isExpertTensor(t.name)).map((t) => t.nbytes));
  const moe = (view.moe?.expertCount ?? 0) > 0;
  const room = input.vramBytes - input.computeBytes - head.bytes;
  const whole = room >= 0 ? lastThatFit(layers, (i) => (layers[i] as LayerView).bytes + kv(i), room) : { n: 0, bytes: 0 };
  // An MoE that does not fit whole: dense parts first (experts stay on the CPU).
  const dense = moe && whole.n < L && room >= 0 ? lastThatFit(layers, (i) => (layers[i] as LayerView).bytes - expertBytes(layers[i] as LayerView) + kv(i), room) : null;
  const denseFirst = dense !== null && dense.n > 0;
  const blocks = room < 0 ? 0 : denseFirst ? dense.n : whole.n;
  const onHead = room >= 0;
  const gpuLayers = onHead ? blocks + 1 : 0;
  const offloaded = new Set(layers.slice(L - blocks).map((l) => l.index));
  // With every dense part on the device, the room left holds the expert cache's VRAM slots, or
  // else the experts of the last layers whole.
  const slots = denseFirst && dense.n === L && input.expertCache ? deviceSlots(view, room - dense.bytes) : null;
  const expertRoom = denseFirst && dense.n === L && !slots ? lastThatFit(layers, (i) => expertBytes(layers[i] as LayerView), room - dense.bytes) : { n: 0, bytes: 0 };
  const expertsOn = new Set(layers.slice(L - expertRoom.n).filter((l) => expertBytes(l) > 0).map((l) => l.index));
  const cpuTensors = denseFirst ? [expertPattern(layers.filter((l) => !expertsOn.has(l.index) && expertBytes(l) > 0).map((l) => l.index), expertsOn.size > 0)] : [];
  const onDevice = (t: ViewTensor): boolean =>
    t.layer === null ? onHead && isHead(t.name) : offloaded.has(t.layer) && !(denseFirst && isExpertTensor(t.name) && !expertsOn.has(t.layer));

  const deviceLayerBytes = sum(layers.flatMap((l) => l.tensors.filter(onDevice).map((t) => t.nbytes)));
  const wholeLayers = new Set(layers.filter((l) => offloaded.has(l.index) && l.tensors.every(onDevice)).map((l) => l.index));
  const kvBytes = sum(layers.filter((l) => offloaded.has(l.index)).map((l) => kv(layers.indexOf(l))));
  const weightBytes = deviceLayerBytes + (onHead ? head.bytes : 0);
  const compute = gpuLayers > 0 ? input.computeBytes : 0;
  const slotBytes = slots ? slots.slotBytes + slots.stagingBytes : 0;
  const used = weightBytes + kvBytes + compute + slotBytes;
  const where = input.device ? ` on ${input.device}` : '';
  const what = !onHead
    ? `nothing: the budget ${fb(input.vramBytes)} is below compute ${fb(input.computeBytes)} + output head ${fb(head.bytes)}`
    : denseFirst
      ? `the output head and the dense part (attention, norms, router) of the last ${blocks} of ${L} layers${expertsOn.size > 0 ? `, and every expert of the last ${expertsOn.size}` : ''}${slots ? `, and ${slots.slotsPerLayer} expert slots in each layer (the expert cache's VRAM tier)` : ''}; the other experts stay in RAM (${cpuTensors[0]} kept on the CPU)`
      : `the output head and the last ${blocks} of ${L} layers, whole`;
  const gpu: GpuPlan = {
    device: input.device ?? null,
    gpuLayers,
    layers: [...offloaded].sort((a, b) => a - b),
    outputOnDevice: onHead,
    mode: gpuLayers === 0 ? 'none' : denseFirst ? 'dense-first' : 'layers',
    cpuTensors,
    expertLayers: [...expertsOn].sort((a, b) => a - b),
    deviceExperts: slots
      ? {
          slotsPerLayer: slots.slotsPerLayer,
          slotBytes: q(slots.slotBytes, `${slots.slotsPerLayer} slots × the experts of ${slots.layers} layers (${fb(slots.perSlot)} a slot in every layer) = ${fb(slots.slotBytes)}: room left ${fb(slots.room)} − staging ${fb(slots.stagingBytes)}, ⌊÷ ${fb(slots.perSlot)}⌋ slots, at most ${slots.experts - 1} of ${slots.experts}`),
          stagingBytes: q(slots.stagingBytes, slots.stagingBytes > 0 ? `one layer's ${slots.experts} experts × ${fb(slots.largest)} (a micro-batch routed to more experts than the slots hold computes from it) = ${fb(slots.stagingBytes)}` : 'none'),
        }
      : null,
    quantities: {
      budgetBytes: q(input.vramBytes, `--vram ${fb(input.vramBytes)}`),
      headBytes: q(onHead ? head.bytes : 0, onHead ? `output head${head.tied ? ' (tied: a copy of token_embd)' : ''} = ${fb(head.bytes)}` : 'not on the device: 0'),
      layerWeightBytes: q(deviceLayerBytes, `weights of the ${blocks} offloaded layers${denseFirst ? ` without their experts${expertsOn.size > 0 ? ` (but ${expertsOn.size} layers' experts, ${fb(expertRoom.bytes)})` : ''}` : ''} = ${fb(deviceLayerBytes)}`),
      kvBytes: q(kvBytes, `KV of the ${blocks} offloaded layers = ${fb(kvBytes)}`),
      computeBytes: q(compute, gpuLayers > 0 ? `the device's compute buffer, sized as the CPU's = ${fb(compute)}` : 'nothing offloaded: 0'),
      usedBytes: q(used, `head ${fb(onHead ? head.bytes : 0)} + layer weights ${fb(deviceLayerBytes)} + KV ${fb(kvBytes)} + compute ${fb(compute)}${slots ? ` + expert slots and staging ${fb(slotBytes)}` : ''} = ${fb(used)} of ${fb(input.vramBytes)}${where}: ${what}`),
    },
  };
  return { gpu, ramView: ramViewOf(view, onDevice, onHead && head.tied), wholeLayers, kvOnDevice: offloaded };
}

/**
 * The expert cache's VRAM tier in `room` bytes: as many slots per layer as fit beside a staging
 * buffer of one layer's experts, at least a token's routed experts (else none: the experts of
 * the last layers are placed whole instead), and fewer than every expert (which the whole
 * placement does without a cache).
 */
export function deviceSlots(view: ModelView, room: number): { slotsPerLayer: number; slotBytes: number; stagingBytes: number; perSlot: number; largest: number; experts: number; layers: number; room: number } | null {
  const moe = view.moe;
  const k = moe?.expertUsedCount ?? 0;
  if (!moe || k <= 0 || moe.expertCount < 2) return null;
  const n = moe.expertCount;
  const perLayer = moe.layers.map((l) => Math.ceil(l.expertBytes / n));
  const perSlot = sum(perLayer);
  const largest = Math.max(0, ...perLayer);
  if (perSlot <= 0 || perSlot * n <= room) return null;
  const stagingBytes = n * largest;
  const slotsPerLayer = Math.min(n - 1, Math.floor((room - stagingBytes) / perSlot));
  if (slotsPerLayer < k) return null;
  return { slotsPerLayer, slotBytes: slotsPerLayer * perSlot, stagingBytes, perSlot, largest, experts: n, layers: moe.layers.length, room };
}

/** The expert tensors kept on the CPU: all of them, or those of the layers listed. */
function expertPattern(cpuLayers: number[], some: boolean): string {
  return some ? `^blk\\.(${cpuLayers.join('|')})${EXPERT_TENSOR_PATTERN}` : EXPERT_TENSOR_PATTERN;
}

/**
 * The view without the device's tensors. The head's tensors stay as 0-byte markers: the RAM
 * plan reads token_embd one row per token when a separate head exists, which is still true
 * when that head (or a tied model's copy of token_embd) is on the device.
 */
function ramViewOf(view: ModelView, onDevice: (t: ViewTensor) => boolean, tiedHeadOnDevice: boolean): ModelView {
  const strip = (t: ViewTensor): ViewTensor => (onDevice(t) ? { ...t, nbytes: 0 } : t);
  const persistentTensors = view.persistent.tensors.map(strip).filter((t) => t.nbytes > 0 || isHead(t.name));
  const embd = view.persistent.tensors.find((t) => t.name === 'token_embd.weight');
  if (tiedHeadOnDevice && embd) persistentTensors.push({ ...embd, name: 'output.weight', nbytes: 0 });
  const layers = view.layers.map((l) => {
    const tensors = l.tensors.filter((t) => !onDevice(t));
    return { ...l, tensors, bytes: sum(tensors.map((t) => t.nbytes)) };
  });
  const tensors = view.tensors.filter((t) => !onDevice(t));
  // The experts left for RAM's expert cache: the layers whose experts stay on the CPU.
  const moeLayers = view.moe?.layers.filter((l) => l.expertTensors.every((n) => tensors.some((t) => t.name === n))) ?? [];
  const moe = view.moe && moeLayers.length > 0 ? { ...view.moe, layers: moeLayers, expertBytes: sum(moeLayers.map((l) => l.expertBytes)), activeBytesPerToken: moeLayers.length === view.moe.layers.length ? view.moe.activeBytesPerToken : null } : null;
  return { ...view, layers, persistent: { tensors: persistentTensors, bytes: sum(persistentTensors.map((t) => t.nbytes)) }, tensors, tensorBytes: sum(tensors.map((t) => t.nbytes)), moe };
}

function sum(xs: readonly number[]): number {
  let s = 0;
  for (const x of xs) s += x;
  return s;
}
