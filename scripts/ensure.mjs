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

/**
 * Electron's install script (allowed in package.json's allowScripts) downloads the Electron
 * binary from its release host (or ELECTRON_MIRROR). Where that host cannot be reached, the
 * download would fail the whole install, so it is skipped (the app then runs in the browser);
 * ELECTRON_SKIP_BINARY_DOWNLOAD set by the caller (CI) is kept as it is.
 */
async function electronDownloadEnv() {
  if (process.env.ELECTRON_SKIP_BINARY_DOWNLOAD !== undefined) return {};
  const host = process.env.ELECTRON_MIRROR ? new URL(process.env.ELECTRON_MIRROR).hostname : 'github.com';
  const { connect } = await import('node:net');
  const reachable = await new Promise((resolve) => {
    const sock = connect({ host, port: 443, timeout: 3000 });
    sock.once('connect', () => (sock.destroy(), resolve(true)));
    sock.once('timeout', () => (sock.destroy(), resolve(false)));
    sock.once('error', () => resolve(false));
  });
  if (reachable) return {};
  step(`${host} is not reachable: the Electron binary is not downloaded (the app runs in your browser instead)`);
  return { ELECTRON_SKIP_BINARY_DOWNLOAD: '1' };
}

async function ensureNodeModules() {
  const marker = join(root, 'node_modules', '.package-lock.json');
  const lock = join(root, 'package-lock.json');
  if (existsSync(marker) && (!existsSync(lock) || statSync(marker).mtimeMs >= statSync(lock).mtimeMs)) return;
  step('installing npm packages');
  execFileSync('npm', ['install', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit', env: { ...process.env, ...(await electronDownloadEnv()) } });
}

export async function ensure({ app = true } = {}) {
  await ensureNodeModules();
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
