// One attempt of a cap-sweep case, as a user makes it: the built CLI in a child process, `run`
// under an enforced cap (its report gives the cgroup's OOM kills), or `serve --api` under the
// cap with concurrent chat (and embeddings) requests, then SIGTERM.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Attempt } from '../shared/sweep/cap-verdict.js';

export interface AttemptSpec {
  readonly model: string;
  readonly draft: string | null;
  readonly capBytes: number;
  readonly settings: string[];
  readonly serve: { readonly requests: number; readonly embeddings: boolean } | null;
  /** The run's own --enforce-timeout; the sweep kills the child a little after it. */
  readonly timeoutS: number;
  readonly workDir: string;
}

/** Runs the CLI with `args`; resolves with its exit code (null when the sweep had to kill it) and stderr. */
export function cli(args: string[], timeoutMs: number, env: NodeJS.ProcessEnv = process.env): Promise<{ exit: number | null; stderr: string; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [process.argv[1] as string, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    let killed = false;
    const t = setTimeout(() => ((killed = true), child.kill('SIGKILL')), timeoutMs);
    child.once('close', (code) => (clearTimeout(t), resolve({ exit: killed ? null : code, stderr, stdout })));
  });
}

export async function attempt(s: AttemptSpec): Promise<Attempt> {
  const t0 = Date.now();
  const r = s.serve ? await serveAttempt(s) : await runAttempt(s);
  return { ...r, capBytes: s.capBytes, ms: Date.now() - t0 };
}

async function runAttempt(s: AttemptSpec): Promise<Omit<Attempt, 'capBytes' | 'ms'>> {
  const report = join(s.workDir, `report-${process.pid}.json`);
  rmSync(report, { force: true });
  const args = ['run', s.model, '-p', 'Once upon a time', '-n', '4', '--temperature', '0', '--ram', String(s.capBytes), '--enforce-ram', '--enforce-timeout', String(s.timeoutS), '--report-json', report, '-q', ...s.settings];
  if (s.draft) args.push('--draft', s.draft);
  const r = await cli(args, (s.timeoutS + 30) * 1000);
  let oomKills: number | null = null;
  if (existsSync(report)) {
    const j = JSON.parse(readFileSync(report, 'utf8')) as { cgroup?: { oom_kills?: number | null } | null };
    oomKills = j.cgroup?.oom_kills ?? null;
    rmSync(report, { force: true });
  }
  return { exit: r.exit, oomKills, failure: null, stderr: r.stderr };
}

/** `serve --api --model` under the cap: every request must succeed, and the server must stop on SIGTERM. */
async function serveAttempt(s: AttemptSpec): Promise<Omit<Attempt, 'capBytes' | 'ms'>> {
  const data = mkdtempSync(join(s.workDir, 'serve-'));
  const child = spawn(process.execPath, [process.argv[1] as string, 'serve', '--api', '--no-ui', '--api-port', '0', '--model', s.model, '--ram', String(s.capBytes), '--enforce-ram', ...s.settings], {
    env: { ...process.env, RAMFORGE_DATA: data, RAMFORGE_API_KEY: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr.on('data', (b: Buffer) => (out += b.toString()));
  let signal: NodeJS.Signals | null = null;
  const exited = new Promise<number | null>((resolve) => child.once('close', (code, sig) => ((signal = sig), resolve(code))));
  try {
    const port = await loaded(() => out, exited, s.timeoutS * 1000);
    if (typeof port !== 'number') return { exit: port.exit, oomKills: null, failure: null, stderr: out };
    const failure = await requests(port, s.serve as NonNullable<AttemptSpec['serve']>, s.timeoutS * 1000);
    child.kill('SIGTERM');
    const code = await Promise.race([exited, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 15_000))]);
    if (code === 'hung') return { exit: null, oomKills: null, failure: 'serve did not exit within 15 s of SIGTERM', stderr: out };
    const oom = /killed by the memory cap|OOM kill/i.test(out) ? 1 : 0;
    const ended = code === null ? `serve was ended by ${signal ?? 'a signal'} after SIGTERM` : null;
    return { exit: failure === null && code === 0 ? 0 : code === 0 ? 1 : code, oomKills: oom, failure: failure ?? ended, stderr: out };
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    rmSync(data, { recursive: true, force: true });
  }
}

/** The API's port once the model answers /health, or the server's exit when it stops first. */
async function loaded(out: () => string, exited: Promise<number | null>, timeoutMs: number): Promise<number | { exit: number | null }> {
  let code: number | null | undefined;
  void exited.then((c) => (code = c));
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (code !== undefined) return { exit: code };
    const m = /OpenAI-compatible API on http:\/\/[^:]+:(\d+)/.exec(out());
    if (m) {
      const port = Number(m[1]);
      if (await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.status === 200, () => false)) return port;
      if (/could not load/.test(out())) return { exit: 1 };
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { exit: null };
}

/** Concurrent chat completions (and one embeddings request): null when all succeed, else what failed. */
async function requests(port: number, spec: NonNullable<AttemptSpec['serve']>, timeoutMs: number): Promise<string | null> {
  const listed = (await fetch(`http://127.0.0.1:${port}/v1/models`).then((r) => r.json(), () => null)) as { data?: { id: string }[] } | null;
  const model = listed?.data?.[0]?.id;
  if (model === undefined) return '/v1/models listed no model';
  // A documented refusal is an answer: embeddings while the weights stream are a clean 400.
  const post = async (path: string, body: unknown, refusal?: string): Promise<string | null> => {
    try {
      const r = await fetch(`http://127.0.0.1:${port}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(timeoutMs) });
      const text = await r.text();
      if (r.status === 400 && refusal !== undefined && text.includes(`"${refusal}"`)) return null;
      return r.status === 200 ? null : `${path} answered ${r.status}: ${text.slice(0, 200)}`;
    } catch (e) {
      return `${path} failed: ${(e as Error).message}`;
    }
  };
  const chat = Array.from({ length: spec.requests }, (_, i) =>
    post('/v1/chat/completions', { model, messages: [{ role: 'user', content: `Tell me a story, number ${i}.` }], max_tokens: 8, temperature: 0 }),
  );
  const embed = spec.embeddings ? [post('/v1/embeddings', { model, input: ['Once upon a time', 'there was a cap'] }, 'embeddings_unavailable')] : [];
  const failures = (await Promise.all([...chat, ...embed])).filter((f): f is string => f !== null);
  return failures.length > 0 ? `${failures.length} of ${chat.length + embed.length} requests failed (${failures[0]})` : null;
}
