// Pieces every architecture table uses: typed metadata values and the tensor record.
import { GgufValueType } from '../shared/gguf/ggml-types.js';
import type { TypedKv } from '../shared/gguf/writer-types.js';

/**
 * matrix: a linear layer reading the normed stream (fan-in = ne0); residualOut: a linear layer
 * writing into the residual stream (attn_output, ffn_down); embedding: token_embd; output: the
 * head; norm: norm weight (1.0); normBias: 0; bias: linear bias (also attention sinks, router and
 * selection biases); residualBias: the bias of a residualOut layer; router: ffn_gate_inp, one row
 * per expert, skewed (kept F32, as llama.cpp's quantizer keeps it); conv: a short convolution
 * kernel (qwen35moe's ssm_conv1d, F32 as ggml_ssm_conv needs it); expertScale: one positive scale
per expert near 1 (gemma4's ffn_down_exps.scale). Norms and biases stay F32
 * whatever their rank (gpt-oss's per-expert biases are 2-D).
 */
export type TensorRole = 'matrix' | 'residualOut' | 'embedding' | 'output' | 'norm' | 'normBias' | 'bias' | 'residualBias' | 'router' | 'conv' | 'expertScale';

export interface ArchTensor {
  readonly name: string;
  readonly dims: readonly number[];
  readonly role: TensorRole;
  /** Every value this constant (F32): a decay that must be negative, a scale that is not 1. */
  readonly constant?: number;
}

export const u32 = (key: string, value: number): TypedKv => ({ key, type: GgufValueType.UINT32, value });
export const f32 = (key: string, value: number): TypedKv => ({ key, type: GgufValueType.FLOAT32, value });
export const bool = (key: string, value: boolean): TypedKv => ({ key, type: GgufValueType.BOOL, value });
export const str = (key: string, value: string): TypedKv => ({ key, type: GgufValueType.STRING, value });
/** An array value (per-layer counts, flags, sections). */
export const arr = (key: string, elementType: GgufValueType, items: readonly (number | boolean)[]): TypedKv => ({ key, type: GgufValueType.ARRAY, value: { elementType, items } });

/** A tensor list with a helper for per-layer names (blk.N.NAME). */
export function tensorList(): { t: ArchTensor[]; blk: (i: number, name: string, dims: number[], role: TensorRole, constant?: number) => void } {
  const t: ArchTensor[] = [];
  return { t, blk: (i, name, dims, role, constant) => void t.push({ name: `blk.${i}.${name}`, dims, role, ...(constant === undefined ? {} : { constant }) }) };
}

/** The routed experts: a router and one 3-D tensor per projection, expert-major. */
export function routedExperts(blk: ReturnType<typeof tensorList>['blk'], i: number, nEmbd: number, ffExp: number, nExpert: number): void {
  blk(i, 'ffn_gate_inp.weight', [nEmbd, nExpert], 'router');
  blk(i, 'ffn_gate_exps.weight', [nEmbd, ffExp, nExpert], 'matrix');
  blk(i, 'ffn_down_exps.weight', [ffExp, nEmbd, nExpert], 'residualOut');
  blk(i, 'ffn_up_exps.weight', [nEmbd, ffExp, nExpert], 'matrix');
}

/** Q, K and V projections, each with its bias (weight then bias, projection by projection). */
export function biasedQkv(blk: ReturnType<typeof tensorList>['blk'], i: number, nEmbd: number, qDim: number, kvDim: number): void {
  blk(i, 'attn_q.weight', [nEmbd, qDim], 'matrix');
  blk(i, 'attn_q.bias', [qDim], 'bias');
  blk(i, 'attn_k.weight', [nEmbd, kvDim], 'matrix');
  blk(i, 'attn_k.bias', [kvDim], 'bias');
  blk(i, 'attn_v.weight', [nEmbd, kvDim], 'matrix');
  blk(i, 'attn_v.bias', [kvDim], 'bias');
}

/** A dense SwiGLU FFN (or a shared expert with suffix '_shexp'). */
export function swiglu(blk: ReturnType<typeof tensorList>['blk'], i: number, nEmbd: number, nFf: number, suffix = ''): void {
  blk(i, `ffn_gate${suffix}.weight`, [nEmbd, nFf], 'matrix');
  blk(i, `ffn_down${suffix}.weight`, [nFf, nEmbd], 'residualOut');
  blk(i, `ffn_up${suffix}.weight`, [nEmbd, nFf], 'matrix');
}
