// electron-vite: main (Electron main process), preload (the typed bridge), renderer (React UI).
// Outputs: out/main/index.js (package.json "main"), out/preload/index.cjs, out/renderer/.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import react from '@vitejs/plugin-react';

const pkg = JSON.parse(readFileSync(resolve('package.json'), 'utf8')) as { version: string; llamaCpp: { tag: string } };

export default defineConfig({
  main: {
    // The same version identity the CLI bundle gets (src-main/cli/version.ts), for reports.
    define: {
      __RAMFORGE_VERSION__: JSON.stringify(pkg.version),
      __LLAMA_CPP_TAG__: JSON.stringify(pkg.llamaCpp.tag),
    },
    build: {
      outDir: 'out/main',
      rolldownOptions: {
        input: { index: resolve('src-main/electron/index.ts') },
      },
    },
  },
  preload: {
    build: {
      outDir: 'out/preload',
      rolldownOptions: {
        input: { index: resolve('src-preload/index.ts') },
        // Sandboxed preloads cannot be ES modules: one CommonJS file that requires only 'electron'.
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: 'src-renderer',
    plugins: [react()],
    build: {
      outDir: resolve('out/renderer'),
      rolldownOptions: {
        input: resolve('src-renderer/index.html'),
      },
    },
  },
});
