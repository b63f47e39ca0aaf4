import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cacheCompute, computeCachePath, computeLookup } from './compute-cache.js';

let dir = '';
const before = process.env.RAMFORGE_CACHE;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ramforge-compute-cache-'));
  process.env.RAMFORGE_CACHE = join(dir, 'cache');
});
afterAll(async () => {
  if (before === undefined) delete process.env.RAMFORGE_CACHE;
  else process.env.RAMFORGE_CACHE = before;
  await rm(dir, { recursive: true, force: true });
});

describe('the measured compute cache', () => {
  it('gives back what was measured for the same file and schedule only, until the file changes', async () => {
    const model = join(dir, 'm.gguf');
    await writeFile(model, 'x'.repeat(4096));
    expect(computeLookup(model)('{"ram":1}')).toBeNull();
    const now = await cacheCompute(model, '{"ram":1}', 0.04, 16);
    expect(now.source).toMatch(/^measured now: 40\.0 ms a token over 16 tokens/);
    expect(computeCachePath().startsWith(join(dir, 'cache'))).toBe(true);
    const hit = computeLookup(model)('{"ram":1}');
    expect(hit?.secondsPerToken).toBe(0.04);
    expect(hit?.source).toMatch(/cached: 40\.0 ms a token/);
    // Another schedule of the same file, and another file, were not measured.
    expect(computeLookup(model)('{"ram":2}')).toBeNull();
    expect(computeLookup(join(dir, 'other.gguf'))('{"ram":1}')).toBeNull();
    // A rewritten file is another model.
    await utimes(model, new Date(), new Date(Date.now() + 60_000));
    expect(computeLookup(model)('{"ram":1}')).toBeNull();
  });

  it('an unreadable cache file is no measurement', async () => {
    const model = join(dir, 'n.gguf');
    await writeFile(model, 'y');
    await writeFile(computeCachePath(), '{not json');
    expect(computeLookup(model)('{}')).toBeNull();
    await cacheCompute(model, '{}', 0.01, 8);
    expect(computeLookup(model)('{}')?.secondsPerToken).toBe(0.01);
  });
});
