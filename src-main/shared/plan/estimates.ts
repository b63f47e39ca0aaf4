// The estimate formulas of the planner, one function each, each returning its value and its
// formula text. Pure arithmetic over the model view's metadata.
import { formatBytes } from '../size.js';
import type { Quantity } from './plan-types.js';
import type { MeasuredCompute } from './measured-compute.js';

export const MiB = 1024 * 1024;
// The inference worker's own charge beyond KV cache and compute buffer, measured at load under
// a cap (context buffers charged): 37-45 MiB on 32k-vocabulary models, 81 MiB on gptneox with a
// 50k vocabulary, 100-107 MiB with 128-152k vocabularies (the tokenizer's tables). Fitted, a
// little high: 32 MiB + 640 B per vocabulary entry + 2 % of the weights (ggml's graph and tensor
// metadata, page tables).
export const RUNTIME_FIXED_BYTES = 32 * MiB;
export const RUNTIME_VOCAB_BYTES = 640;
export const RUNTIME_WEIGHT_FRACTION = 0.02;
export const VRAM_CONTEXT_BYTES = 256 * MiB;
/** llama.cpp rounds a context's length up to a multiple of this many tokens (its KV cache is that long). */
export const CTX_PAD = 256;

const fb = (n: number): string => formatBytes(n);

/**
 * KV cache of one layer: K and V, each n_kv_heads × head_dim × ctx elements:
 * 2 × n_kv_heads × head_dim × ctx × bytes per element (key and value head sizes may differ).
 */
export function kvBytesForLayer(nKvHeads: number, keyDim: number, valueDim: number, ctx: number, elemBytes: number): Quantity {
  const value = nKvHeads * (keyDim + valueDim) * ctx * elemBytes;
  const formula =
    keyDim === valueDim
      ? `2 × n_kv_heads ${nKvHeads} × head_dim ${keyDim} × ctx ${ctx} × ${elemBytes} B = ${fb(value)}`
      : `n_kv_heads ${nKvHeads} × (key_length ${keyDim} + value_length ${valueDim}) × ctx ${ctx} × ${elemBytes} B = ${fb(value)}`;
  return { value, formula };
}

/**
 * Compute buffer (llama.cpp's graph allocator, CPU): the largest of the logits of a
 * micro-batch and the attention scores of one layer, plus the per-token activations:
 * 4 B × n_ubatch × max(n_vocab, n_head × ctx) + 4 B × n_ubatch × (n_embd + n_ff).
 * An estimate: calibrate against measured compute-buffer sizes.
 */
export function computeBufferBytes(nVocab: number, nHead: number, nEmbd: number, nFf: number, ctx: number, ubatch: number): Quantity {
  const value = 4 * ubatch * Math.max(nVocab, nHead * ctx) + 4 * ubatch * (nEmbd + nFf);
  const formula = `4 B × n_ubatch ${ubatch} × max(n_vocab ${nVocab}, n_head ${nHead} × ctx ${ctx}) + 4 B × n_ubatch ${ubatch} × (n_embd ${nEmbd} + n_ff ${nFf}) = ${fb(value)}`;
  return { value, formula };
}

/**
 * Runtime overhead: the worker process, the addon, the tokenizer's tables, ggml's graph and
 * tensor metadata and the page tables: 32 MiB + 640 B × n_vocab + 2 % of the weight bytes.
 */
export function runtimeOverheadBytes(weightBytes: number, nVocab: number): Quantity {
  const value = Math.ceil(RUNTIME_FIXED_BYTES + RUNTIME_VOCAB_BYTES * nVocab + RUNTIME_WEIGHT_FRACTION * weightBytes);
  return { value, formula: `${fb(RUNTIME_FIXED_BYTES)} + 640 B × n_vocab ${nVocab} + 2 % × weights ${fb(weightBytes)} = ${fb(value)}` };
}

/**
 * Decode speed of an expert cache whose compute was measured. A layer's misses are read once its
 * router has chosen them, and the layer's products wait for them (the experts it holds compute
 * meanwhile, a small part of the token): a token takes its compute plus its misses' reads. The
 * share `ahead` of them that read-ahead started while earlier layers computed (measured by
 * earlier runs of the file) overlaps the compute instead:
 * tok/s = 1 / (max(compute, ahead × reads) + (1 − ahead) × reads), reads = read / disk_bw.
 */
export function expertCacheTokS(read: number, diskBw: number, measured: MeasuredCompute, rateSource?: string, ahead = 0): Quantity {
  const io = read / diskBw;
  const c = measured.secondsPerToken;
  const t = Math.max(c, ahead * io) + (1 - ahead) * io;
  const value = t > 0 ? 1 / t : null;
  const rate = rateSource ? `disk ${fb(diskBw)}/s in reads of one expert (${rateSource})` : `disk ${fb(diskBw)}/s`;
  const ms = (x: number) => `${(x * 1000).toFixed(1)} ms`;
  const reads = `misses ${fb(read)} / ${rate} = ${ms(io)}`;
  const compute = `compute ${ms(c)} (${measured.source})`;
  const text = ahead > 0 ? `max(${compute}, ${(ahead * 100).toFixed(0)} % read ahead of ${reads}, as earlier runs of this file read ahead) + the rest ${ms((1 - ahead) * io)}` : `${compute} + ${reads}`;
  return { value, formula: `1 / (${text}) = ${value === null ? '—' : value.toFixed(2)} tok/s` };
}

/**
 * Decode speed, bandwidth-bound. Per token every weight is read once: streamed bytes come from
 * storage (prefetched, so they overlap compute), resident bytes from RAM (and VRAM):
 * tok/s = 1 / max(streamed / disk_bw, ram_bytes / ram_bw + vram_bytes / vram_bw).
 */
export function predictedTokS(streamed: number, diskBw: number, ramTouched: number, ramBw: number, vramTouched: number, vramBw: number, measured?: MeasuredCompute): Quantity {
  const io = streamed / diskBw;
  // The schedule's compute measured on the model's shadow replaces the bandwidth model, which
  // takes neither the CPU's own rate nor the graph's per-op cost into account (CPU only).
  if (measured && vramTouched === 0) {
    const t = Math.max(io, measured.secondsPerToken);
    const value = t > 0 ? 1 / t : null;
    return { value, formula: `1 / max(streamed ${fb(streamed)} / disk ${fb(diskBw)}/s = ${(io * 1000).toFixed(1)} ms, compute ${(measured.secondsPerToken * 1000).toFixed(1)} ms (${measured.source})) = ${value === null ? '—' : value.toFixed(2)} tok/s` };
  }
  const compute = ramTouched / ramBw + vramTouched / vramBw;
  const t = Math.max(io, compute);
  const value = t > 0 ? 1 / t : null;
  const parts = [`streamed ${fb(streamed)} / disk ${fb(diskBw)}/s = ${(io * 1000).toFixed(1)} ms`, `RAM ${fb(ramTouched)} / ${fb(ramBw)}/s` + (vramTouched > 0 ? ` + VRAM ${fb(vramTouched)} / ${fb(vramBw)}/s` : '') + ` = ${(compute * 1000).toFixed(1)} ms`];
  return { value, formula: `1 / max(${parts.join(', ')}) = ${value === null ? '—' : value.toFixed(2)} tok/s` };
}
