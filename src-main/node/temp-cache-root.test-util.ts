// A test file's own cache folder (RAMFORGE_CACHE) in a fresh temporary folder, restored and
// removed after its tests: caches written under test never touch the user's.
import { afterAll, beforeAll } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Registers the folder's set-up and removal; the returned function gives the temporary folder (the cache is its `cache`). */
export function useTempCacheRoot(prefix: string): () => string {
  let dir = '';
  const saved = process.env.RAMFORGE_CACHE;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), prefix));
    process.env.RAMFORGE_CACHE = join(dir, 'cache');
  });
  afterAll(async () => {
    if (saved === undefined) delete process.env.RAMFORGE_CACHE;
    else process.env.RAMFORGE_CACHE = saved;
    await rm(dir, { recursive: true, force: true });
  });
  return () => dir;
}
