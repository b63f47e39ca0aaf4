#!/usr/bin/env node
// `npm test` after scripts/ensure.mjs: the type checks and the layering check, the unit, native
// and CLI suites (vitest), then the browser end-to-end suite (Playwright in Chromium). Fails if
// any part fails.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const parts = [
  ['types and layers', [join(root, 'scripts', 'typecheck.mjs')]],
  ['unit, native and CLI tests', [join(root, 'node_modules', 'vitest', 'vitest.mjs'), 'run']],
];
if (existsSync(join(root, 'e2e', 'run.mjs'))) parts.push(['end-to-end tests (Chromium)', [join(root, 'e2e', 'run.mjs')]]);

let failed = 0;
for (const [name, args] of parts) {
  process.stderr.write(`\n[test] ${name}\n`);
  const r = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit', env: { ...process.env, GGML_NO_BACKTRACE: '1' } });
  if (r.status !== 0) {
    failed++;
    process.stderr.write(`[test] ${name} FAILED (exit ${r.status ?? r.signal})\n`);
  }
}
process.exit(failed ? 1 : 0);
