import { describe, expect, it } from 'vitest';
import { utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cacheCompute, computeCachePath, computeLookup } from './compute-cache.js';
import { useTempCacheRoot } from './temp-cache-root.test-util.js';

const tmp = useTempCacheRoot('ramforge-compute-cache-');

describe('the measured compute cache', () => {
  it('gives back what was measured for the same file and schedule only, until the file changes', async () => {
    const model = join(tmp(), 'm.gguf');
    await writeFile(model, 'x'.repeat(4096));
    expect(computeLookup(model)('{"ram":1}')).toBeNull();
    const now = await cacheCompute(model, '{"ram":1}', 0.04, 16);
    expect(now.source).toMatch(/^measured now: 40\.0 ms a token over 16 tokens/);
    expect(computeCachePath().startsWith(join(tmp(), 'cache'))).toBe(true);
    const hit = computeLookup(model)('{"ram":1}');
    expect(hit?.secondsPerToken).toBe(0.04);
    expect(hit?.source).toMatch(/cached: 40\.0 ms a token/);
    // Another schedule of the same file, and another file, were not measured.
    expect(computeLookup(model)('{"ram":2}')).toBeNull();
    expect(computeLookup(join(tmp(), 'other.gguf'))('{"ram":1}')).toBeNull();
    // A rewritten file is another model.
    await utimes(model, new Date(), new Date(Date.now() + 60_000));
    expect(computeLookup(model)('{"ram":1}')).toBeNull();
  });

  it('an unreadable cache file is no measurement', async () => {
    const model = join(tmp(), 'n.gguf');
    await writeFile(model, 'y');
    await writeFile(computeCachePath(), '{not json');
    expect(computeLookup(model)('{}')).toBeNull();
    await cacheCompute(model, '{}', 0.01, 8);
    expect(computeLookup(model)('{}')?.secondsPerToken).toBe(0.01);
  });
});
