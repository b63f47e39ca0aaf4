#!/usr/bin/env node
// `npm run build`: builds everything the app and the CLI need, from what is missing or out of
// date — llama.cpp (cached), the native addon, the CLI and worker bundles, the app.
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { ensure } = await import(pathToFileURL(join(root, 'scripts', 'ensure.mjs')).href);
await ensure({ app: true });
process.stderr.write('[build] done: out/cli (CLI and worker), out/main, out/preload, out/renderer (app), native/build (addon)\n');
