// Test helpers: run the built CLI (out/cli/ramforge.mjs, made by `npm test`'s build step) as a
// user would, and find llama.cpp's own tools built from the same pinned source.
import { spawnSync, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../node/paths.js';

export interface CliResult {
  code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
}

export function cliPath(): string {
  const p = join(packageRoot(), 'out', 'cli', 'ramforge.mjs');
  if (!existsSync(p)) throw new Error(`${p} is missing: run 'npm run build:cli' (npm test does it first)`);
  return p;
}

export function runCli(args: string[], opts: { timeoutMs?: number; env?: NodeJS.ProcessEnv; cwd?: string } = {}): CliResult {
  const r = spawnSync(process.execPath, [cliPath(), ...args], {
    encoding: 'utf8',
    timeout: opts.timeoutMs ?? 120_000,
    env: { ...process.env, ...opts.env },
    cwd: opts.cwd,
    maxBuffer: 64 * 1024 * 1024,
  });
  return { code: r.status, signal: r.signal, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

/** Path of a llama.cpp tool (e.g. llama-simple) from the cached build, building it if needed. */
export function llamaTool(name: string): string {
  const root = packageRoot();
  const paths = JSON.parse(execFileSync(process.execPath, [join(root, 'scripts', 'llama-cpp.mjs'), 'paths'], { encoding: 'utf8' })) as { build: string };
  const bin = join(paths.build, 'bin', name);
  if (!existsSync(bin)) execFileSync(process.execPath, [join(root, 'scripts', 'llama-cpp.mjs'), 'build', name], { stdio: 'inherit' });
  return bin;
}
