import { describe, expect, it } from 'vitest';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cachedRouting, recordRunRouting, routingOfSample } from './routing-cache.js';
import { readAheadOf } from './load-machine.js';
import { useTempCacheRoot } from './temp-cache-root.test-util.js';
import type { ExpertSample } from '../shared/residency-types.js';

const tmp = useTempCacheRoot('ramforge-routing-cache-');

const sample = (p: Partial<ExpertSample>): ExpertSample => ({ routed: 0, hits: 0, prefetchHits: 0, resident: [{ layer: 0, uses: [3, 1, 0, 0] }], ...p }) as ExpertSample;

describe('the routing runs measured', () => {
  it("keeps, with the routing, the reads the cache needed and how many read-ahead started in time; a plan of the file reads the share back", async () => {
    expect(routingOfSample(sample({ routed: 400, hits: 100, prefetchHits: 240 }), 4, 1)?.readAhead).toEqual({ needed: 300, covered: 240 });
    const model = join(tmp(), 'm.gguf');
    await writeFile(model, 'x');
    expect(readAheadOf(model)).toBeNull();
    await recordRunRouting(model, [{ experts: sample({ routed: 400, hits: 100, prefetchHits: 240 }) }], { experts: 4, used: 1 });
    expect(cachedRouting(model)?.readAhead).toEqual({ needed: 300, covered: 240 });
    expect(readAheadOf(model)).toBeCloseTo(0.8, 9);
  });
});
