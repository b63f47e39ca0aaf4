// Test helper: the test-only addon (native/test-seams, built beside the real one by
// scripts/build-native.mjs), which drives native pieces with inputs a test describes. The app
// and the worker never load it.
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../node/paths.js';
import type { NativeDraftPass } from './addon.js';

export interface TestSeams {
  /** The speculative decoder's choice of k on passes the caller describes: the k chosen before each pass. */
  draftLengthRun(min: number, max: number, passes: number, pass: (k: number, i: number) => NativeDraftPass): number[];
}

export function loadTestSeams(): TestSeams {
  const p = join(packageRoot(), 'native', 'build', 'Release', 'ramforge-test-seams.node');
  if (!existsSync(p)) throw new Error(`${p} is missing: run 'node scripts/build-native.mjs' (npm test does it first)`);
  return createRequire(import.meta.url)(p) as TestSeams;
}
