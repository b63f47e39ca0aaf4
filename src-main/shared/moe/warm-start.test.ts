import { describe, expect, it } from 'vitest';
import { warmExperts } from './warm-start.js';

const record = { experts: 4, used: 2, batches: 10, layers: [{ layer: 3, uses: [1, 9, 0, 4] }, { layer: 5, uses: [0, 0, 0, 0] }] };

describe('warmExperts', () => {
  it("takes each layer's most routed experts, most used first, at most the layer's slots, never one no run used", () => {
    expect(warmExperts(record, { experts: 4, used: 2 }, 2)).toEqual([{ layer: 3, experts: [1, 3] }]);
    expect(warmExperts(record, { experts: 4, used: 2 }, 8)).toEqual([{ layer: 3, experts: [1, 3, 0] }]);
  });

  it('ignores a record of another shape, or none', () => {
    expect(warmExperts(record, { experts: 8, used: 2 }, 2)).toEqual([]);
    expect(warmExperts(record, { experts: 4, used: 1 }, 2)).toEqual([]);
    expect(warmExperts(null, { experts: 4, used: 2 }, 2)).toEqual([]);
  });
});
