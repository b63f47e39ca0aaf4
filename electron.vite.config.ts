// electron-vite: main (Electron main process), preload (the typed bridge), renderer (React UI).
// Outputs: out/main/index.js (package.json "main"), out/preload/index.cjs, out/renderer/.
import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import react from '@vitejs/plugin-react';

export default defineConfig({
  main: {
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
