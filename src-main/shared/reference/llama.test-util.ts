// An independent reference forward pass of llama.cpp's LLM_ARCH_LLAMA graph (src/models/llama.cpp)
// for small float models: token embedding, per layer RMSNorm -> Q/K/V -> RoPE (adjacent pairs,
// LLAMA_ROPE_TYPE_NORM) -> causal grouped-query attention -> output projection -> residual ->
// RMSNorm -> SwiGLU FFN -> residual, then output RMSNorm and the head (token_embd when tied).
// A layer with experts (the Mixtral layout) replaces the FFN with build_moe_ffn's softmax
// gating: probabilities over all experts, the top k, their weights renormalized to sum 1, and
// the weighted sum of the chosen experts' SwiGLU FFNs.
// Computed in float64; with `f16Attention` Q, K and V are rounded to binary16 as llama.cpp's
// default F16 KV cache (and its flash-attention kernel) does.
import { matVec, rmsNorm, ropeInPlace, silu, softmaxInPlace } from './ops.test-util.js';
import { roundToF16 } from './f16.test-util.js';

export interface LlamaRefLayer {
  readonly attnNorm: Float32Array;
  readonly wq: Float32Array;
  readonly wk: Float32Array;
  readonly wv: Float32Array;
  readonly wo: Float32Array;
  readonly ffnNorm: Float32Array;
  readonly wGate: Float32Array;
  readonly wUp: Float32Array;
  readonly wDown: Float32Array;
  /** Experts instead of the FFN (wGate, wUp, wDown then unused). */
  readonly moe?: LlamaRefMoe;
}

/** A Mixtral-layout layer: router {n_embd, n_expert}; experts expert-major, each as wGate/wUp/wDown. */
export interface LlamaRefMoe {
  readonly nExpert: number;
  readonly nUsed: number;
  readonly router: Float32Array;
  readonly gateExps: Float32Array;
  readonly upExps: Float32Array;
  readonly downExps: Float32Array;
}

export interface LlamaRefModel {
  readonly nEmbd: number;
  readonly nHead: number;
  readonly nHeadKv: number;
  readonly nFf: number;
  readonly nVocab: number;
  readonly normEps: number;
  readonly ropeFreqBase: number;
  readonly tokEmbd: Float32Array;
  readonly layers: readonly LlamaRefLayer[];
  readonly outputNorm: Float32Array;
  /** Absent: the head is tied to tokEmbd. */
  readonly output?: Float32Array;
}

export interface ForwardOptions {
  /** Round Q, K, V to binary16 (llama.cpp's default F16 KV cache). Default true. */
  readonly f16Attention?: boolean;
  /** Called with the experts each position is routed to, per MoE layer (most probable first). */
  readonly onRoute?: (layer: number, position: number, experts: readonly number[]) => void;
}

/** Logits of the last position for a token sequence. */
export function llamaForward(m: LlamaRefModel, tokens: readonly number[], opts: ForwardOptions = {}): Float64Array {
  const f16 = opts.f16Attention ?? true;
  const E = m.nEmbd;
  const hd = E / m.nHead;
  const kvDim = hd * m.nHeadKv;
  const group = m.nHead / m.nHeadKv;
  const T = tokens.length;
  if (T === 0) throw new RangeError('no tokens');
  const r16 = (a: Float64Array): Float64Array => (f16 ? a.map(roundToF16) : a);

  let hidden: Float64Array[] = tokens.map((tok) => {
    if (!Number.isInteger(tok) || tok < 0 || tok >= m.nVocab) throw new RangeError(`token ${tok} out of range`);
    return Float64Array.from(m.tokEmbd.subarray(tok * E, (tok + 1) * E));
  });

  for (const [li, L] of m.layers.entries()) {
    const qs: Float64Array[] = [];
    const ks: Float64Array[] = [];
    const vs: Float64Array[] = [];
    for (let t = 0; t < T; t++) {
      const x = rmsNorm(hidden[t] as Float64Array, L.attnNorm, m.normEps);
      const q = matVec(L.wq, x, E, E);
      const k = matVec(L.wk, x, E, kvDim);
      const v = matVec(L.wv, x, E, kvDim);
      for (let h = 0; h < m.nHead; h++) ropeInPlace(q, h * hd, hd, t, m.ropeFreqBase, 'norm');
      for (let h = 0; h < m.nHeadKv; h++) ropeInPlace(k, h * hd, hd, t, m.ropeFreqBase, 'norm');
      qs.push(r16(q));
      ks.push(r16(k));
      vs.push(r16(v));
    }
    const scale = 1 / Math.sqrt(hd);
    const next: Float64Array[] = [];
    for (let t = 0; t < T; t++) {
      const attn = new Float64Array(E);
      const scores = new Float64Array(t + 1);
      for (let h = 0; h < m.nHead; h++) {
        const kvh = Math.floor(h / group);
        const q = qs[t] as Float64Array;
        for (let j = 0; j <= t; j++) {
          const k = ks[j] as Float64Array;
          let s = 0;
          for (let d = 0; d < hd; d++) s += (q[h * hd + d] as number) * (k[kvh * hd + d] as number);
          scores[j] = s * scale;
        }
        softmaxInPlace(scores, t + 1);
        for (let j = 0; j <= t; j++) {
          const v = vs[j] as Float64Array;
          const p = scores[j] as number;
          for (let d = 0; d < hd; d++) attn[h * hd + d] = (attn[h * hd + d] as number) + p * (v[kvh * hd + d] as number);
        }
      }
      const o = matVec(L.wo, attn, E, E);
      const resid = (hidden[t] as Float64Array).map((x, i) => x + (o[i] as number));
      const y = rmsNorm(resid, L.ffnNorm, m.normEps);
      const ffn = (wGate: Float32Array, wUp: Float32Array, wDown: Float32Array): Float64Array => {
        const gate = matVec(wGate, y, E, m.nFf);
        const up = matVec(wUp, y, E, m.nFf);
        return matVec(wDown, gate.map((g, i) => silu(g) * (up[i] as number)), m.nFf, E);
      };
      let down: Float64Array;
      if (L.moe) {
        const x = L.moe;
        const probs = matVec(x.router, y, E, x.nExpert);
        softmaxInPlace(probs);
        const chosen = [...probs.keys()].sort((a, b) => (probs[b] as number) - (probs[a] as number) || a - b).slice(0, x.nUsed);
        opts.onRoute?.(li, t, chosen);
        const total = chosen.reduce((s, e) => s + (probs[e] as number), 0);
        const size = E * m.nFf;
        down = new Float64Array(E);
        for (const e of chosen) {
          const out = ffn(x.gateExps.subarray(e * size, (e + 1) * size), x.upExps.subarray(e * size, (e + 1) * size), x.downExps.subarray(e * size, (e + 1) * size));
          const w = (probs[e] as number) / total;
          for (let i = 0; i < E; i++) down[i] = (down[i] as number) + w * (out[i] as number);
        }
      } else {
        down = ffn(L.wGate, L.wUp, L.wDown);
      }
      next.push(resid.map((x, i) => x + (down[i] as number)));
    }
    hidden = next;
  }

  const last = rmsNorm(hidden[T - 1] as Float64Array, m.outputNorm, m.normEps);
  return matVec(m.output ?? m.tokEmbd, last, E, m.nVocab);
}
