// Builds a LlamaRefModel from a parsed GGUF header and the file's bytes (F32 and F16 tensors).
import { GgufValueType } from '../gguf/ggml-types.js';
import type { GgufHeader, GgufTensorInfo } from '../gguf/reader-types.js';
import { decodeF16 } from './f16.test-util.js';
import type { LlamaRefLayer, LlamaRefModel } from './llama.test-util.js';

function num(h: GgufHeader, key: string, fallback?: number): number {
  const e = h.kvByKey.get(key);
  if (!e) {
    if (fallback !== undefined) return fallback;
    throw new Error(`missing ${key}`);
  }
  if (typeof e.value !== 'number') throw new Error(`${key} is not a number`);
  return e.value;
}

function tensorValues(bytes: Uint8Array, t: GgufTensorInfo): Float32Array {
  const slice = bytes.subarray(t.start, t.end);
  const view = new DataView(slice.buffer, slice.byteOffset, slice.byteLength);
  const out = new Float32Array(t.nElements);
  if (t.typeName === 'F32') for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(4 * i, true);
  else if (t.typeName === 'F16') for (let i = 0; i < out.length; i++) out[i] = decodeF16(view.getUint16(2 * i, true));
  else throw new Error(`reference forward reads F32/F16 tensors only; '${t.name}' is ${t.typeName}`);
  return out;
}

export function llamaRefModelFromGguf(h: GgufHeader, bytes: Uint8Array): LlamaRefModel {
  const arch = h.kvByKey.get('general.architecture');
  if (!arch || arch.type !== GgufValueType.STRING || arch.value !== 'llama') throw new Error('not a llama-architecture GGUF');
  const byName = new Map(h.tensors.map((t) => [t.name, t]));
  const get = (name: string): Float32Array => {
    const t = byName.get(name);
    if (!t) throw new Error(`missing tensor ${name}`);
    return tensorValues(bytes, t);
  };
  const nEmbd = num(h, 'llama.embedding_length');
  const nHead = num(h, 'llama.attention.head_count');
  const nLayer = num(h, 'llama.block_count');
  const tokEmbd = byName.get('token_embd.weight');
  if (!tokEmbd) throw new Error('missing tensor token_embd.weight');
  const layers: LlamaRefLayer[] = [];
  const nExpert = num(h, 'llama.expert_count', 0);
  const none = new Float32Array(0);
  for (let i = 0; i < nLayer; i++) {
    const b = `blk.${i}.`;
    if (nExpert > 0) {
      layers.push({
        attnNorm: get(`${b}attn_norm.weight`),
        wq: get(`${b}attn_q.weight`),
        wk: get(`${b}attn_k.weight`),
        wv: get(`${b}attn_v.weight`),
        wo: get(`${b}attn_output.weight`),
        ffnNorm: get(`${b}ffn_norm.weight`),
        wGate: none,
        wUp: none,
        wDown: none,
        moe: {
          nExpert,
          nUsed: num(h, 'llama.expert_used_count'),
          router: get(`${b}ffn_gate_inp.weight`),
          gateExps: get(`${b}ffn_gate_exps.weight`),
          upExps: get(`${b}ffn_up_exps.weight`),
          downExps: get(`${b}ffn_down_exps.weight`),
        },
      });
      continue;
    }
    layers.push({
      attnNorm: get(`${b}attn_norm.weight`),
      wq: get(`${b}attn_q.weight`),
      wk: get(`${b}attn_k.weight`),
      wv: get(`${b}attn_v.weight`),
      wo: get(`${b}attn_output.weight`),
      ffnNorm: get(`${b}ffn_norm.weight`),
      wGate: get(`${b}ffn_gate.weight`),
      wUp: get(`${b}ffn_up.weight`),
      wDown: get(`${b}ffn_down.weight`),
    });
  }
  return {
    nEmbd,
    nHead,
    nHeadKv: num(h, 'llama.attention.head_count_kv', nHead),
    nFf: num(h, 'llama.feed_forward_length'),
    nVocab: tokEmbd.dims[1] as number,
    normEps: num(h, 'llama.attention.layer_norm_rms_epsilon'),
    ropeFreqBase: num(h, 'llama.rope.freq_base', 10000),
    tokEmbd: tensorValues(bytes, tokEmbd),
    layers,
    outputNorm: get('output_norm.weight'),
    output: byName.has('output.weight') ? get('output.weight') : undefined,
  };
}
