import { describe, expect, it } from 'vitest';
import { normalizeTrace } from './trace-model.js';

describe('normalizeTrace', () => {
  it('reads groups in order with tensors and last use', () => {
    const t = normalizeTrace({
      complete: true,
      groups: [
        { order: 0, layer: 0, nodes: [{ op: 'MUL_MAT' }, { op: 'ADD' }], tensors: [{ name: 'a', last_use_group: 0 }, 'shared'] },
        { order: 1, layer: 1, ops: ['MUL_MAT'], nodes: 5, tensors: ['shared'] },
      ],
    });
    expect(t.complete).toBe(true);
    expect(t.groups[0]!.ops).toEqual(['MUL_MAT', 'ADD']);
    expect(t.groups[0]!.nodes).toBe(2);
    expect(t.groups[1]!.nodes).toBe(5);
    // 'shared' has no explicit last use: it is the last group that touches it.
    expect(t.groups[0]!.tensors.find((x) => x.name === 'shared')!.lastUseGroup).toBe(1);
    expect(t.groups[0]!.tensors.find((x) => x.name === 'a')!.lastUseGroup).toBe(0);
  });
  it('is incomplete when truncated', () => {
    expect(normalizeTrace({ truncated: true }).complete).toBe(false);
    expect(normalizeTrace({ complete: false, reason: 'bound' }).reason).toBe('bound');
    expect(normalizeTrace({}).complete).toBe(true);
  });
});
