// The building blocks of the reference forward pass, written for clarity, in float64.
// Weight matrices are ggml-shaped: ne = [in, out], i.e. `out` rows of `in` contiguous values.

/** y = W x for W with ne = [nIn, nOut]. */
export function matVec(w: Float32Array, x: Float64Array, nIn: number, nOut: number): Float64Array {
  if (w.length !== nIn * nOut) throw new RangeError(`matrix has ${w.length} values, expected ${nIn} x ${nOut}`);
  if (x.length !== nIn) throw new RangeError(`vector has ${x.length} values, expected ${nIn}`);
  const y = new Float64Array(nOut);
  for (let o = 0; o < nOut; o++) {
    let s = 0;
    const row = o * nIn;
    for (let i = 0; i < nIn; i++) s += (w[row + i] as number) * (x[i] as number);
    y[o] = s;
  }
  return y;
}

/** RMSNorm: x / sqrt(mean(x^2) + eps) * weight (llama.cpp's LLM_NORM_RMS). */
export function rmsNorm(x: Float64Array, weight: Float32Array, eps: number): Float64Array {
  let ss = 0;
  for (let i = 0; i < x.length; i++) ss += (x[i] as number) * (x[i] as number);
  const scale = 1 / Math.sqrt(ss / x.length + eps);
  return Float64Array.from(x, (v, i) => v * scale * (weight[i] as number));
}

/** Softmax in place over the first n values (numerically stable). */
export function softmaxInPlace(x: Float64Array, n = x.length): void {
  let max = -Infinity;
  for (let i = 0; i < n; i++) max = Math.max(max, x[i] as number);
  let sum = 0;
  for (let i = 0; i < n; i++) {
    x[i] = Math.exp((x[i] as number) - max);
    sum += x[i] as number;
  }
  for (let i = 0; i < n; i++) x[i] = (x[i] as number) / sum;
}

export function silu(x: number): number {
  return x / (1 + Math.exp(-x));
}

/**
 * RoPE on one head in place, llama.cpp's two layouts: 'norm' (LLAMA_ROPE_TYPE_NORM, the llama
 * arch) rotates adjacent pairs (2i, 2i+1); 'neox' (qwen2, gptneox) rotates (i, i + nRot/2).
 * Pair i turns by pos * base^(-2i/nRot). Dimensions past nRot are left alone.
 */
export function ropeInPlace(head: Float64Array, offset: number, nRot: number, pos: number, freqBase: number, mode: 'norm' | 'neox'): void {
  const half = nRot / 2;
  for (let i = 0; i < half; i++) {
    const theta = pos * Math.pow(freqBase, (-2 * i) / nRot);
    const c = Math.cos(theta);
    const s = Math.sin(theta);
    const a = offset + (mode === 'norm' ? 2 * i : i);
    const b = offset + (mode === 'norm' ? 2 * i + 1 : i + half);
    const x0 = head[a] as number;
    const x1 = head[b] as number;
    head[a] = x0 * c - x1 * s;
    head[b] = x0 * s + x1 * c;
  }
}

export function cosineSimilarity(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new RangeError('length mismatch');
  let ab = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    ab += x * y;
    aa += x * x;
    bb += y * y;
  }
  return ab / Math.sqrt(aa * bb);
}

export function argmax(a: ArrayLike<number>): number {
  let best = 0;
  for (let i = 1; i < a.length; i++) if ((a[i] as number) > (a[best] as number)) best = i;
  return best;
}
