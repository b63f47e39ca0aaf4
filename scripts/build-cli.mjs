#!/usr/bin/env node
// Bundles the CLI and the inference worker for plain Node (ES modules, node_modules external).
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

/** `outdir` (default out/cli) and source maps: the GPU bundle builds its own copy, without maps. */
export async function buildCli({ outdir = 'out/cli', sourcemap = 'linked' } = {}) {
  await build({
    absWorkingDir: root,
    entryPoints: {
      ramforge: 'src-main/cli/main.ts',
      worker: 'src-main/worker/worker-main.ts',
      'gpu-probe': 'src-main/worker/gpu-probe-main.ts',
      'template-render': 'src-main/worker/template-render-main.ts',
    },
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    sourcemap,
    logLevel: 'warning',
    define: {
      __RAMFORGE_VERSION__: JSON.stringify(pkg.version),
      __LLAMA_CPP_TAG__: JSON.stringify(pkg.llamaCpp.tag),
    },
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await buildCli();
}
