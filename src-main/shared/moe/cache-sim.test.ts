import { describe, expect, it } from 'vitest';
import { simulateBelady, simulateLru, type RouteRequest } from './cache-sim.js';

const decode = (...experts: number[]): RouteRequest => ({ phase: 1, experts });

describe('expert cache replayed offline', () => {
  it("Belady keeps the expert needed soonest where LRU keeps the one used last", () => {
    // Cache of 2: a b c a b c … LRU misses every time; the optimum keeps one of a, b.
    const reqs = [decode(0), decode(1), decode(2), decode(0), decode(1), decode(2), decode(0), decode(1)];
    expect(simulateLru(reqs, 2).misses).toBe(8);
    const opt = simulateBelady(reqs, 2);
    expect(opt.misses).toBe(5);
    expect(opt.decodeMisses).toBe(5);
  });

  it('counts a micro-batch wider than the cache as reads of what it lacks, leaving LRU untouched', () => {
    const reqs: RouteRequest[] = [decode(0, 1), { phase: 0, experts: [0, 1, 2, 3] }, decode(0, 1)];
    const lru = simulateLru(reqs, 2);
    expect(lru.misses).toBe(2 + 2 + 0);
    expect(lru.decodeMisses).toBe(2);
    expect(simulateBelady(reqs, 2).misses).toBe(4);
  });

  it('the optimum never reads more than LRU on any sequence', () => {
    let seed = 7;
    const rnd = (): number => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    for (let trial = 0; trial < 20; trial++) {
      const reqs: RouteRequest[] = Array.from({ length: 200 }, () => {
        const s = new Set<number>();
        while (s.size < 3) s.add(Math.floor(rnd() * rnd() * 32));
        return decode(...s);
      });
      const cap = 3 + (trial % 10);
      expect(simulateBelady(reqs, cap).misses).toBeLessThanOrEqual(simulateLru(reqs, cap).misses);
    }
  });
});
