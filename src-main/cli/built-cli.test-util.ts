// Test helpers: run the built CLI (out/cli/ramforge.mjs, made by `npm test`'s build step) as a
// user would, and find llama.cpp's own tools built from the same pinned source.
import { spawn, spawnSync, execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../node/paths.js';

export interface CliResult {
  /** The CLI's process id (the memory groups it makes are named for it). */
  pid: number | undefined;
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

/**
 * Whether the CLI and worker bundles are built, for tests that need them: in CI a missing build
 * fails (npm test builds first); elsewhere the caller skips, and this says why.
 */
export function cliBuiltOrSkip(what: string): boolean {
  if (existsSync(join(packageRoot(), 'out', 'cli', 'ramforge.mjs'))) return true;
  if (process.env.CI === 'true') throw new Error('out/cli is missing: npm test builds it first');
  console.warn(`skipping ${what}: the CLI and worker are not built (node scripts/build-cli.mjs)`);
  return false;
}

export function runCli(args: string[], opts: { timeoutMs?: number; env?: NodeJS.ProcessEnv; cwd?: string } = {}): CliResult {
  const r = spawnSync(process.execPath, [cliPath(), ...args], {
    encoding: 'utf8',
    timeout: opts.timeoutMs ?? 120_000,
    env: { ...process.env, ...opts.env },
    cwd: opts.cwd,
    maxBuffer: 64 * 1024 * 1024,
  });
  return { pid: r.pid, code: r.status, signal: r.signal, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

export interface LiveCli {
  child: ChildProcess;
  /** Everything printed so far. */
  out: { stdout: string; stderr: string };
  /** Resolves with what was printed once the CLI has exited (or was killed after `timeoutMs`). */
  done: Promise<CliResult>;
}

/**
 * The built CLI as a child a test can watch and act on while it runs: `onOutput` sees the
 * output so far after each chunk. A CLI still running after `timeoutMs` is killed (SIGKILL), so
 * a hang ends as a failed assertion, never as a stuck test run.
 */
export function startCli(args: string[], onOutput: (o: LiveCli['out']) => void = () => {}, timeoutMs = 120_000): LiveCli {
  const child = spawn(process.execPath, [cliPath(), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const out = { stdout: '', stderr: '' };
  child.stdout?.on('data', (b: Buffer) => ((out.stdout += b.toString('utf8')), onOutput(out)));
  child.stderr?.on('data', (b: Buffer) => ((out.stderr += b.toString('utf8')), onOutput(out)));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const done = new Promise<CliResult>((resolve) =>
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ pid: child.pid, code, signal, ...out });
    }),
  );
  return { child, out, done };
}

/** Direct children of a process (the CLI's inference worker, or its supervisor's shell). */
export function childPids(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** Path of a llama.cpp tool (e.g. llama-simple) from the cached build, building it if needed. */
export function llamaTool(name: string): string {
  const root = packageRoot();
  const paths = JSON.parse(execFileSync(process.execPath, [join(root, 'scripts', 'llama-cpp.mjs'), 'paths'], { encoding: 'utf8' })) as { build: string };
  const bin = join(paths.build, 'bin', name);
  if (!existsSync(bin)) execFileSync(process.execPath, [join(root, 'scripts', 'llama-cpp.mjs'), 'build', name], { stdio: 'inherit' });
  return bin;
}
