// DEV ONLY: builds the renderer against the mock API into a temp folder for screenshots.
// npx vite build --config src-renderer/dev/vite.dev.config.ts
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  plugins: [react()],
  build: { outDir: join(tmpdir(), 'ramforge-renderer-dev'), emptyOutDir: true, target: 'es2022' },
});
