#!/usr/bin/env node
// `npm start` (after scripts/ensure.mjs has built everything): opens the app.
//   - with an Electron binary and a display: the desktop window (electron .);
//   - otherwise browser mode: `ramforge serve` on 127.0.0.1, printing the URL.
// With no model given, the demo model is used; it is synthesized on first run and cached in
// the user data folder.
//
// Usage: npm start -- [--model PATH] [--browser] [--port N]
//   RAMFORGE_MODEL=PATH works too; --browser forces browser mode.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'bin', 'ramforge.mjs');

function parse(argv) {
  const o = { model: process.env.RAMFORGE_MODEL || null, browser: false, port: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--model') o.model = argv[++i];
    else if (a.startsWith('--model=')) o.model = a.slice(8);
    else if (a === '--browser') o.browser = true;
    else if (a === '--port') o.port = argv[++i];
    else if (a.startsWith('--port=')) o.port = a.slice(7);
    else if (a === '-h' || a === '--help') {
      process.stdout.write('Usage: npm start -- [--model PATH] [--browser] [--port N]\n');
      process.exit(0);
    } else {
      process.stderr.write(`start: unknown argument '${a}'\n`);
      process.exit(2);
    }
  }
  return o;
}

/** Same rule as src-main/node/paths.ts dataRoot(). */
function dataRoot() {
  return process.env.RAMFORGE_DATA || join(process.env.XDG_DATA_HOME || join(homedir(), '.local', 'share'), 'ramforge');
}

function electronBinary() {
  try {
    const p = createRequire(join(root, 'package.json'))('electron');
    return typeof p === 'string' && existsSync(p) ? p : null;
  } catch {
    return null; // the electron package throws when its binary was never downloaded
  }
}

function hasDisplay() {
  if (process.platform === 'darwin' || process.platform === 'win32') return true;
  return Boolean(process.env.DISPLAY || process.env.WAYLAND_DISPLAY);
}

function ensureDemoModel() {
  const path = join(dataRoot(), 'models', 'demo-llama-small-q4_0.gguf');
  if (existsSync(path)) return path;
  process.stderr.write(`start: creating the demo model (first run only): ${path}\n`);
  const r = spawnSync(process.execPath, [cli, 'synth', '--arch', 'llama', '--preset', 'small', '--type', 'Q4_0', '--seed', '1', '--out', path], { stdio: 'inherit' });
  if (r.status !== 0 || !existsSync(path)) {
    process.stderr.write('start: could not create the demo model (see above)\n');
    process.exit(r.status || 1);
  }
  return path;
}

function run(cmd, args, env = process.env) {
  const child = spawn(cmd, args, { cwd: root, stdio: 'inherit', env });
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
  child.on('exit', (code, signal) => process.exit(signal ? 1 : (code ?? 1)));
}

const opts = parse(process.argv.slice(2));
if (!existsSync(cli)) {
  process.stderr.write(`start: ${cli} is missing; run: npm run build\n`);
  process.exit(1);
}
const model = opts.model ? resolve(opts.model) : ensureDemoModel();
if (!existsSync(model)) {
  process.stderr.write(`start: no such model file: ${model}\n`);
  process.exit(2);
}

const electron = electronBinary();
const display = hasDisplay();
if (!opts.browser && electron && display && existsSync(join(root, 'out', 'main', 'index.js'))) {
  const args = ['.', '--model', model];
  // Chromium refuses to start as root without this; it turns off the OS-level sandbox only
  // (the renderer still runs with sandbox: true and contextIsolation).
  if (process.getuid?.() === 0) {
    process.stderr.write('start: running as root: passing --no-sandbox to Electron\n');
    args.push('--no-sandbox');
  }
  process.stderr.write(`start: opening the desktop app with ${model}\n`);
  run(electron, args);
} else {
  const why = opts.browser ? 'browser mode requested' : !electron ? 'no Electron binary installed' : !display ? 'no display ($DISPLAY / $WAYLAND_DISPLAY)' : 'the Electron main bundle is missing';
  process.stderr.write(`start: ${why} — serving the app in your browser instead\n`);
  const args = [cli, 'serve', '--model', model];
  if (opts.port) args.push('--port', String(opts.port));
  if (display) args.push('--open');
  run(process.execPath, args);
}
