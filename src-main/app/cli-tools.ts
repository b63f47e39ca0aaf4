// Untrusted GGUF headers are parsed out of process: the app runs the project's own CLI
// (`ramforge inspect --json`, `ramforge plan --json`, `ramforge synth`) as a child process, so a
// hostile file can at worst kill that child, never the main process or the UI. The CLI uses the
// one hardened reader; its exit code 2 carries the reader's message on stderr.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { packageRoot } from '../node/paths.js';

export class CliToolError extends Error {
  constructor(
    message: string,
    readonly exitCode: number | null,
    readonly code: string,
  ) {
    super(message);
    this.name = 'CliToolError';
  }
}

export interface CliRunOptions {
  timeoutMs?: number;
  /** Largest stdout accepted (bytes); bigger output is an error, not an allocation. */
  maxOutputBytes?: number;
}

export function cliEntry(): string {
  return join(packageRoot(), 'bin', 'ramforge.mjs');
}

/** Node to run the CLI with: plain Node, or Electron's binary in Node mode. */
function nodeCommand(): { cmd: string; env: NodeJS.ProcessEnv } {
  const env = { ...process.env };
  if (process.versions.electron) env.ELECTRON_RUN_AS_NODE = '1';
  return { cmd: process.execPath, env };
}

/** The reader's message without the CLI's `ramforge <cmd>: ` prefix. */
export function cleanCliMessage(stderr: string, command: string): string {
  const lines = stderr.split('\n').map((l) => l.trim()).filter(Boolean);
  const last = lines.find((l) => l.startsWith(`ramforge ${command}:`)) ?? lines[lines.length - 1] ?? '';
  return last.replace(new RegExp(`^ramforge ${command}:\\s*`), '') || `ramforge ${command} failed`;
}

export function runCli(args: string[], opts: CliRunOptions = {}): Promise<string> {
  const { cmd, env } = nodeCommand();
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const maxOut = opts.maxOutputBytes ?? 64 * 1024 * 1024;
  const command = args[0] ?? '';
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, [cliEntry(), ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let outLen = 0;
    let err = '';
    let failed: Error | null = null;
    const timer = setTimeout(() => {
      failed = new CliToolError(`ramforge ${command} took longer than ${Math.round(timeoutMs / 1000)} s and was stopped`, null, 'timeout');
      child.kill('SIGKILL');
    }, timeoutMs);
    child.stdout.on('data', (b: Buffer) => {
      outLen += b.length;
      if (outLen > maxOut) {
        failed ??= new CliToolError(`ramforge ${command} printed more than ${maxOut} bytes`, null, 'output-too-large');
        child.kill('SIGKILL');
        return;
      }
      out.push(b);
    });
    child.stderr.on('data', (b: Buffer) => {
      if (err.length < 64 * 1024) err += b.toString('utf8');
    });
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(new CliToolError(`cannot run ramforge ${command}: ${e.message}`, null, 'spawn'));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (failed) return reject(failed);
      if (code === 0) return resolve(Buffer.concat(out).toString('utf8'));
      const msg = signal ? `ramforge ${command} was killed by ${signal}` : cleanCliMessage(err, command);
      reject(new CliToolError(msg, code, code === 2 ? 'bad-input' : 'failure'));
    });
  });
}

export async function runCliJson(args: string[], opts?: CliRunOptions): Promise<unknown> {
  const text = await runCli(args, opts);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new CliToolError(`ramforge ${args[0] ?? ''} did not print JSON`, 0, 'bad-output');
  }
}
