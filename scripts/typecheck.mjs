#!/usr/bin/env node
// Type-checks each environment on its own — pure code without Node's or the DOM's types, main
// without the DOM's, the renderer without Node's — then everything with the tests, and checks
// the layering (scripts/check-layers.mjs). Fails on the first error. Part of `npm test`.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const steps = [
  ['layers', [join(root, 'scripts', 'check-layers.mjs')]],
  ...['tsconfig.shared.json', 'tsconfig.node.json', 'tsconfig.web.json', 'tsconfig.json'].map((c) => [`tsc -p ${c}`, [tsc, '--noEmit', '-p', join(root, c)]]),
];
for (const [name, args] of steps) {
  process.stderr.write(`[typecheck] ${name}\n`);
  const r = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) {
    process.stderr.write(`[typecheck] ${name} FAILED\n`);
    process.exit(1);
  }
}
