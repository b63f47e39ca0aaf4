import { describe, expect, it } from 'vitest';
import { CAP_KINDS, SWEEP_ARCHS, SWEEP_MAX_FILE_BYTES, approxModelBytes, capBytesFor, sweepCase, synthArgs } from './cap-cases.js';

describe('sweep cases', () => {
  it('are the same case for the same seed and index, and differ across indices', () => {
    expect(sweepCase(42, 7)).toEqual(sweepCase(42, 7));
    const names = new Set(Array.from({ length: 50 }, (_, i) => JSON.stringify(sweepCase(42, i).model)));
    expect(names.size).toBeGreaterThan(40);
  });

  it('cover every architecture, every kind of cap, drafts, serve with embeddings, and 2 to 80 layers', () => {
    const cs = Array.from({ length: 600 }, (_, i) => sweepCase(3, i));
    expect(new Set(cs.map((c) => c.model.arch))).toEqual(new Set(SWEEP_ARCHS));
    expect(new Set(cs.map((c) => c.cap.kind))).toEqual(new Set(CAP_KINDS));
    expect(cs.some((c) => c.draft)).toBe(true);
    expect(cs.some((c) => c.serve && c.embeddings)).toBe(true);
    expect(cs.some((c) => c.parallel === 4)).toBe(true);
    const layers = cs.map((c) => c.model.layers);
    expect(Math.min(...layers)).toBe(2);
    expect(Math.max(...layers)).toBeGreaterThanOrEqual(60);
    expect(Math.max(...layers)).toBeLessThanOrEqual(80);
  });

  it('keep models small enough to make in seconds, and drafts to dense models run alone', () => {
    for (let i = 0; i < 600; i++) {
      const c = sweepCase(9, i);
      expect(approxModelBytes(c.model)).toBeLessThanOrEqual(SWEEP_MAX_FILE_BYTES);
      if (c.draft) expect(c.model.experts === undefined && !c.serve && c.parallel === undefined).toBe(true);
      if (c.model.experts) expect(c.model.experts.used).toBeLessThanOrEqual(c.model.experts.count);
      expect(c.model.embd % c.model.heads).toBe(0);
      expect(c.model.heads % c.model.kvHeads).toBe(0);
    }
  });

  it('put each kind of cap where its name says, relative to the minimum and full residency', () => {
    const c = sweepCase(1, 0);
    const at = (kind: (typeof CAP_KINDS)[number], x: number) => capBytesFor({ ...c, cap: { kind, at: x } }, 100e6, 400e6);
    expect(at('far-below', 1)).toBeLessThan(0.75e8);
    expect(at('just-below', 1)).toBeLessThan(100e6);
    expect(at('just-below', 0)).toBeGreaterThanOrEqual(0.9e8);
    expect(at('at-minimum', 0.5)).toBe(100e6);
    expect(at('between', 0.5)).toBe(250e6);
    expect(at('above-full', 0)).toBeGreaterThan(400e6);
  });

  it('write mixtures of experts with synth\'s expert flags (Mixtral as llama with experts)', () => {
    const mix = Array.from({ length: 200 }, (_, i) => sweepCase(5, i)).find((c) => c.model.arch === 'mixtral');
    expect(mix).toBeDefined();
    const a = synthArgs(mix!.model);
    expect(a.slice(0, 2)).toEqual(['--arch', 'llama']);
    expect(a).toContain('--experts');
    expect(a).not.toContain('--expert-ff');
  });
});
