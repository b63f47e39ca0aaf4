import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src-main/**/*.test.ts', 'src-renderer/**/*.test.ts', 'src-renderer/**/*.test.tsx'],
    // Native tests load models and run inference; two cores cannot run them all at once.
    maxWorkers: 2,
    testTimeout: 120_000,
    hookTimeout: 300_000,
  },
});
