// Valid little model headers of the three architectures we have evidence for, built with the
// test writer: a few F32/Q8_0 tensors per layer, real key names, a small vocab.
import { GgufValueType as V } from './ggml-types.js';
import { buildGguf, tensorBytes, type GgufSpec, type KvSpec, type TensorSpec } from './build-gguf.test-util.js';
import { parseGgufHeader } from './reader.js';
import { buildModelView, type ModelView } from './model-view.js';

export type TinyArch = 'llama' | 'qwen2' | 'gptneox';

export interface TinyOptions {
  arch?: TinyArch;
  layers?: number;
  embd?: number;
  heads?: number;
  kvHeads?: number;
  ff?: number;
  vocab?: number;
  ctx?: number;
  /** ggml type id of the big matrices (default F32 = 0; Q8_0 = 8 needs embd % 32 == 0). */
  matType?: number;
  name?: string;
  extraKv?: KvSpec[];
  /** Tensor names to leave out. */
  omit?: string[];
  /** block_count written (default layers). */
  blockCount?: number;
  /**
   * A mixture of experts in the Mixtral layout (llama): a router and one 3-D tensor per
   * projection, `ff` wide; `used` writes expert_used_count, `sharedFf` adds a shared expert
   * (*_shexp), `skew` writes ramforge.synth.router_skew as synth does.
   */
  experts?: { count: number; used?: number; sharedFf?: number; skew?: number };
}

export function tinySpec(o: TinyOptions = {}): GgufSpec {
  const arch = o.arch ?? 'llama';
  const L = o.layers ?? 2;
  const E = o.embd ?? 32;
  const H = o.heads ?? 4;
  const KV = o.kvHeads ?? (arch === 'gptneox' ? H : 2);
  const F = o.ff ?? 64;
  const Vn = o.vocab ?? 16;
  const mt = o.matType ?? 0;
  const hd = E / H;
  const kv: KvSpec[] = [
    { key: 'general.architecture', type: V.STRING, value: arch },
    { key: 'general.name', type: V.STRING, value: o.name ?? `tiny-${arch}` },
    { key: `${arch}.block_count`, type: V.UINT32, value: o.blockCount ?? L },
    { key: `${arch}.context_length`, type: V.UINT32, value: o.ctx ?? 256 },
    { key: `${arch}.embedding_length`, type: V.UINT32, value: E },
    { key: `${arch}.feed_forward_length`, type: V.UINT32, value: F },
    { key: `${arch}.attention.head_count`, type: V.UINT32, value: H },
    { key: `${arch}.attention.head_count_kv`, type: V.UINT32, value: KV },
    { key: 'tokenizer.ggml.model', type: V.STRING, value: arch === 'llama' ? 'llama' : 'gpt2' },
    {
      key: 'tokenizer.ggml.tokens',
      type: V.ARRAY,
      value: { elementType: V.STRING, items: Array.from({ length: Vn }, (_, i) => `tok${i}`) },
    },
    { key: 'tokenizer.ggml.scores', type: V.ARRAY, value: { elementType: V.FLOAT32, items: Array.from({ length: Vn }, () => 0) } },
    { key: 'tokenizer.chat_template', type: V.STRING, value: '{{ messages }}' },
    ...(o.experts ? moeKv(arch, o.experts) : []),
    ...(o.extraKv ?? []),
  ];
  const t: TensorSpec[] = [];
  const add = (name: string, dims: number[], type = 0): void => {
    if (!o.omit?.includes(name)) t.push({ name, dims, type });
  };
  add('token_embd.weight', [E, Vn], mt);
  for (let i = 0; i < L; i++) {
    const p = `blk.${i}.`;
    add(p + 'attn_norm.weight', [E]);
    if (arch === 'gptneox') {
      add(p + 'attn_norm.bias', [E]);
      add(p + 'attn_qkv.weight', [E, E + 2 * KV * hd], mt);
      add(p + 'attn_qkv.bias', [E + 2 * KV * hd]);
      add(p + 'attn_output.weight', [E, E], mt);
      add(p + 'attn_output.bias', [E]);
      add(p + 'ffn_norm.weight', [E]);
      add(p + 'ffn_norm.bias', [E]);
      add(p + 'ffn_up.weight', [E, F], mt);
      add(p + 'ffn_up.bias', [F]);
      add(p + 'ffn_down.weight', [F, E], mt);
      add(p + 'ffn_down.bias', [E]);
    } else {
      add(p + 'attn_q.weight', [E, E], mt);
      add(p + 'attn_k.weight', [E, KV * hd], mt);
      add(p + 'attn_v.weight', [E, KV * hd], mt);
      if (arch === 'qwen2') {
        add(p + 'attn_q.bias', [E]);
        add(p + 'attn_k.bias', [KV * hd]);
        add(p + 'attn_v.bias', [KV * hd]);
      }
      add(p + 'attn_output.weight', [E, E], mt);
      add(p + 'ffn_norm.weight', [E]);
      if (o.experts) {
        const X = o.experts.count;
        add(p + 'ffn_gate_inp.weight', [E, X]);
        add(p + 'ffn_gate_exps.weight', [E, F, X], mt);
        add(p + 'ffn_down_exps.weight', [F, E, X], mt);
        add(p + 'ffn_up_exps.weight', [E, F, X], mt);
        const S = o.experts.sharedFf;
        if (S) {
          add(p + 'ffn_gate_shexp.weight', [E, S], mt);
          add(p + 'ffn_down_shexp.weight', [S, E], mt);
          add(p + 'ffn_up_shexp.weight', [E, S], mt);
        }
      } else {
        add(p + 'ffn_gate.weight', [E, F], mt);
        add(p + 'ffn_up.weight', [E, F], mt);
        add(p + 'ffn_down.weight', [F, E], mt);
      }
    }
  }
  add('output_norm.weight', [E]);
  if (arch === 'gptneox') add('output_norm.bias', [E]);
  add('output.weight', [E, Vn], mt);
  return { kv, tensors: t };
}

function moeKv(arch: string, x: NonNullable<TinyOptions['experts']>): KvSpec[] {
  const kv: KvSpec[] = [{ key: `${arch}.expert_count`, type: V.UINT32, value: x.count }];
  if (x.used !== undefined) kv.push({ key: `${arch}.expert_used_count`, type: V.UINT32, value: x.used });
  if (x.sharedFf) kv.push({ key: `${arch}.expert_shared_feed_forward_length`, type: V.UINT32, value: x.sharedFf });
  if (x.skew !== undefined) kv.push({ key: 'ramforge.synth.router_skew', type: V.FLOAT32, value: x.skew });
  return kv;
}

export function tinyModel(o: TinyOptions = {}): Uint8Array {
  return buildGguf(tinySpec(o)).bytes;
}

/** A model view of real size built from a header only (the payload is never materialised). */
export function headerOnlyView(o: TinyOptions, path = 'model.gguf'): ModelView {
  const spec = tinySpec(o);
  const { bytes, offsets } = buildGguf({ ...spec, dataBytes: 0 });
  let end = 0;
  for (const t of spec.tensors ?? []) end = Math.ceil(end / 32) * 32 + tensorBytes(t);
  return buildModelView([{ path, header: parseGgufHeader(bytes, offsets.dataOffset + end) }]);
}
