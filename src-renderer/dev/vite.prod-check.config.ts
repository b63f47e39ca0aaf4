// DEV ONLY: builds the production renderer entry (index.html → main.tsx) into a temp folder,
// to check the bundle and look at the page without a backend (the app's real build is
// electron.vite.config.ts). npx vite build --config src-renderer/dev/vite.prod-check.config.ts
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('..', import.meta.url)),
  base: './',
  plugins: [react()],
  build: { outDir: join(tmpdir(), 'ramforge-renderer-prod'), emptyOutDir: true },
});
