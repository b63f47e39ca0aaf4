#!/usr/bin/env node
// Runs the e2e suite (vitest with e2e/vitest.e2e.config.ts) and prints a one-line verdict.
// Exit code: vitest's (non-zero on any failure). `npm test` calls this after the unit tests.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');
const r = spawnSync(process.execPath, [vitest, 'run', '--config', join('e2e', 'vitest.e2e.config.ts'), ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' });
const code = r.status ?? 1;
process.stdout.write(`\ne2e: ${code === 0 ? 'PASSED' : `FAILED (exit ${code})`} — screenshots in test-output/screenshots/\n`);
process.exit(code);
