// The end-to-end suite: the real app (browser mode, and Electron when a binary exists) driven
// by playwright-core. One file at a time, in order; run by e2e/run.mjs.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['e2e/**/*.e2e.test.ts'],
    fileParallelism: false,
    maxWorkers: 1,
    testTimeout: 180_000,
    hookTimeout: 300_000,
    reporters: ['verbose'],
  },
});
