#!/usr/bin/env node
// Installs and builds whatever is missing, so `npm start` and `npm test` work on a fresh clone:
// npm packages, the pinned llama.cpp (cached outside the repo), the native addon, the CLI and
// worker bundles, and the app (main, preload, renderer). Each step is skipped when up to date.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function step(msg) {
  process.stderr.write(`[ensure] ${msg}\n`);
}

function newestMtime(dir) {
  let t = 0;
  if (!existsSync(dir)) return 0;
  for (const f of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, f.name);
    if (f.isDirectory()) t = Math.max(t, newestMtime(p));
    else t = Math.max(t, statSync(p).mtimeMs);
  }
  return t;
}

function ensureNodeModules() {
  const marker = join(root, 'node_modules', '.package-lock.json');
  const lock = join(root, 'package-lock.json');
  if (existsSync(marker) && (!existsSync(lock) || statSync(marker).mtimeMs >= statSync(lock).mtimeMs)) return;
  step('installing npm packages');
  execFileSync('npm', ['install', '--no-audit', '--no-fund'], {
    cwd: root,
    stdio: 'inherit',
    // The Electron binary cannot be downloaded here; the app still builds and its UI runs in
    // browser mode.
    env: { ...process.env, ELECTRON_SKIP_BINARY_DOWNLOAD: '1' },
  });
}

export async function ensure({ app = true } = {}) {
  ensureNodeModules();
  const { ensureNative } = await import(pathToFileURL(join(root, 'scripts', 'build-native.mjs')).href);
  ensureNative();
  const { buildCli } = await import(pathToFileURL(join(root, 'scripts', 'build-cli.mjs')).href);
  const cliOut = join(root, 'out', 'cli', 'ramforge.mjs');
  if (!existsSync(cliOut) || newestMtime(join(root, 'src-main')) > statSync(cliOut).mtimeMs) {
    step('bundling the CLI and worker');
    await buildCli();
  }
  if (app) {
    const rendererOut = join(root, 'out', 'renderer', 'index.html');
    const srcNewest = Math.max(newestMtime(join(root, 'src-renderer')), newestMtime(join(root, 'src-preload')), newestMtime(join(root, 'src-main')));
    if (!existsSync(rendererOut) || srcNewest > statSync(rendererOut).mtimeMs) {
      step('building the app (electron-vite)');
      execFileSync(process.execPath, [join(root, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'), 'build'], { cwd: root, stdio: 'inherit' });
    }
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await ensure({ app: !process.argv.includes('--no-app') });
}
