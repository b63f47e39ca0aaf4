import { describe, expect, it } from 'vitest';
import { llamaForward, type LlamaRefModel } from './llama.test-util.js';

const ones = (n: number) => new Float32Array(n).fill(1);

/** A one-layer model whose attention and FFN are zero: logits are the head applied to the normed embedding. */
function model(over: Partial<LlamaRefModel> = {}): LlamaRefModel {
  const E = 2;
  return {
    nEmbd: E,
    nHead: 1,
    nHeadKv: 1,
    nFf: 2,
    nVocab: 3,
    normEps: 0,
    ropeFreqBase: 10000,
    tokEmbd: Float32Array.from([3, 4, 1, 0, 0, -2]),
    layers: [
      {
        attnNorm: ones(E),
        wq: new Float32Array(4),
        wk: new Float32Array(4),
        wv: new Float32Array(4),
        wo: new Float32Array(4),
        ffnNorm: ones(E),
        wGate: new Float32Array(4),
        wUp: new Float32Array(4),
        wDown: new Float32Array(4),
      },
    ],
    outputNorm: ones(E),
    ...over,
  };
}

describe('llamaForward', () => {
  it('with zero blocks, logits = head(RMSNorm(embedding of the last token))', () => {
    // token 0 embeds as (3, 4): RMS = sqrt(12.5); tied head rows are the embeddings
    const logits = llamaForward(model(), [2, 0]);
    const n = [3 / Math.sqrt(12.5), 4 / Math.sqrt(12.5)];
    expect(logits[0]).toBeCloseTo(3 * n[0]! + 4 * n[1]!, 10);
    expect(logits[1]).toBeCloseTo(1 * n[0]!, 10);
    expect(logits[2]).toBeCloseTo(-2 * n[1]!, 10);
  });

  it('uses output.weight when present', () => {
    const logits = llamaForward(model({ output: Float32Array.from([1, 0, 0, 1, 1, 1]) }), [1]);
    // token 1 embeds as (1, 0): RMS = sqrt(0.5) -> (sqrt 2, 0)
    expect(Array.from(logits).map((x) => +x.toFixed(10))).toEqual([+Math.SQRT2.toFixed(10), 0, +Math.SQRT2.toFixed(10)]);
  });

  it('attention averages V over the causal prefix when all scores are equal', () => {
    // wq = 0 -> all scores 0 -> uniform weights; wv = identity; wo = identity
    const id = Float32Array.from([1, 0, 0, 1]);
    const m = model({ output: Float32Array.from([1, 0, 0, 1, 0, 0]) });
    const layer = { ...m.layers[0]!, wv: id, wo: id };
    const logits = llamaForward({ ...m, layers: [layer] }, [0, 1], { f16Attention: false });
    // v0 = norm(3,4) = (0.8485, 1.1314); v1 = norm(1,0) = (1.4142, 0); attn = mean
    const v0 = [3 / Math.sqrt(12.5), 4 / Math.sqrt(12.5)];
    const v1 = [Math.SQRT2, 0];
    const h = [1 + (v0[0]! + v1[0]!) / 2, (v0[1]! + v1[1]!) / 2];
    const rms = Math.sqrt((h[0]! ** 2 + h[1]! ** 2) / 2);
    expect(logits[0]).toBeCloseTo(h[0]! / rms, 10);
    expect(logits[1]).toBeCloseTo(h[1]! / rms, 10);
  });

  it('rejects out-of-range tokens and empty input', () => {
    expect(() => llamaForward(model(), [3])).toThrow(/out of range/);
    expect(() => llamaForward(model(), [])).toThrow(/no tokens/);
  });
});
