#!/usr/bin/env node
// `ramforge` launcher: builds what is missing on first use (like `npm start`), then runs the CLI.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'out', 'cli', 'ramforge.mjs');
const addon = join(root, 'native', 'build', 'Release', 'ramforge.node');
if (!existsSync(cli) || !existsSync(addon)) {
  const { ensure } = await import(pathToFileURL(join(root, 'scripts', 'ensure.mjs')).href);
  await ensure({ app: false });
}
await import(pathToFileURL(cli).href);
