import { describe, expect, it } from 'vitest';
import { buildManifest, releaseOrderFromProfile, type TracedNode } from './manifest.js';

const W = new Set(['token_embd.weight', 'blk.0.attn_q.weight', 'blk.0.ffn_up.weight', 'blk.1.attn_q.weight', 'blk.1.ffn_up.weight', 'output.weight']);

function n(name: string, op: string, srcs: string[], group: number): TracedNode {
  return { name, op, srcs, bytes: 16, group };
}

const NODES = [
  n('inp_embd', 'GET_ROWS', ['token_embd.weight', 'inp_tokens'], 0),
  n('attn_norm-0', 'RMS_NORM', ['inp_embd'], 0),
  n('Qcur-0', 'MUL_MAT', ['blk.0.attn_q.weight', 'attn_norm-0'], 1),
  n('ffn_up-0', 'MUL_MAT', ['blk.0.ffn_up.weight', 'Qcur-0'], 1),
  n('attn_norm-1', 'RMS_NORM', ['ffn_up-0'], 1),
  n('Qcur-1', 'MUL_MAT', ['blk.1.attn_q.weight', 'attn_norm-1'], 2),
  n('ffn_up-1', 'MUL_MAT', ['blk.1.ffn_up.weight', 'Qcur-1'], 2),
  n('result_output', 'MUL_MAT', ['output.weight', 'ffn_up-1'], 2),
];

describe('graph-trace manifest', () => {
  it('lists weight tensors with first and last use, node groups per layer, and edges', () => {
    const m = buildManifest({ nodes: NODES, dropped: 0, captured: true }, W);
    expect(m.complete).toBe(true);
    expect(m.events).toBe(8);
    expect(m.edges).toBe(14);
    expect(m.tensors.map((t) => [t.name, t.firstUse, t.lastUse])).toEqual([
      ['token_embd.weight', 0, 0],
      ['blk.0.attn_q.weight', 2, 2],
      ['blk.0.ffn_up.weight', 3, 3],
      ['blk.1.attn_q.weight', 5, 5],
      ['blk.1.ffn_up.weight', 6, 6],
      ['output.weight', 7, 7],
    ]);
    expect(m.groups.map((g) => [g.group, g.layer, g.weights.length])).toEqual([
      [0, 0, 1],
      [1, 0, 2],
      [2, 1, 3],
    ]);
  });

  it('orders releases so the layer needed latest goes first', () => {
    const m = buildManifest({ nodes: NODES, dropped: 0, captured: true }, W);
    expect(releaseOrderFromProfile(m, 2)).toEqual([1, 0]);
  });

  it('marks a bounded capture incomplete and refuses its profile', () => {
    const m = buildManifest({ nodes: NODES.slice(0, 4), dropped: 4, captured: true }, W);
    expect(m.complete).toBe(false);
    expect(m.reason).toContain('4 node events dropped');
    expect(() => releaseOrderFromProfile(m, 2)).toThrow(/refused/);
  });

  it('refuses a profile that never saw a layer even when nothing was dropped', () => {
    const m = buildManifest({ nodes: NODES.slice(0, 4), dropped: 0, captured: true }, W);
    expect(() => releaseOrderFromProfile(m, 2)).toThrow(/layers 1 never appear/);
  });
});
