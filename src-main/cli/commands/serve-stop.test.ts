// `ramforge serve --api --model FILE` stopped while its model loads (the built CLI, a real worker,
// a synthetic model of 133 MiB): SIGTERM ends the server with exit 0 and leaves no worker behind;
// a server killed outright (SIGKILL) mid-load leaves a worker that notices and exits by itself.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { detectCgroup } from '../../supervisor/index.js';
import { groupsMadeBy } from '../../supervisor/support.test-util.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { childPids, cliBuiltOrSkip, runCli, startCli, type LiveCli } from '../built-cli.test-util.js';

const built = cliBuiltOrSkip('the serve stop tests');
let dir = '';
let model = '';

/** Inference workers among a process's children. */
async function workersOf(pid: number): Promise<number[]> {
  const out: number[] = [];
  for (const p of childPids(pid)) if ((await readFile(`/proc/${p}/cmdline`, 'utf8').catch(() => '')).includes('worker.mjs')) out.push(p);
  return out;
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Waits up to `ms` for every pid to be gone; returns those still alive (and kills them, so none outlives the test). */
async function goneWithin(pids: number[], ms: number): Promise<number[]> {
  const until = Date.now() + ms;
  while (pids.some(alive) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
  const left = pids.filter(alive);
  for (const p of left) process.kill(p, 'SIGKILL');
  return left;
}

/** Starts serve and waits for its worker to exist (the load has begun), recording every worker seen. */
async function serveUntilWorker(): Promise<{ cli: LiveCli; workers: Set<number> }> {
  const cli = startCli(['serve', '--api', '--no-ui', '--api-port', '0', '--model', model], () => {}, 60_000);
  const workers = new Set<number>();
  const until = Date.now() + 60_000;
  while (workers.size === 0 && Date.now() < until && cli.child.exitCode === null) {
    for (const w of await workersOf(cli.child.pid as number)) workers.add(w);
    await new Promise((r) => setTimeout(r, 10));
  }
  expect(workers.size, cli.out.stderr).toBe(1);
  expect(cli.out.stderr).not.toContain('ramforge serve: loaded');
  return { cli, workers };
}

beforeAll(async () => {
  if (!built) return;
  dir = await mkdtemp(join(tmpdir(), 'ramforge-serve-stop-'));
  process.env.RAMFORGE_DATA = join(dir, 'data');
  model = join(dir, 'small.gguf');
  const r = runCli(['synth', '--preset', 'small', '--out', model, '--quiet']);
  expect(r.code, r.stderr).toBe(0);
}, 120_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe.runIf(built)('serve --api --model stopped while the model loads', () => {
  it('SIGTERM mid-load: the server exits 0 and its worker is gone', async () => {
    const { cli, workers } = await serveUntilWorker();
    cli.child.kill('SIGTERM');
    const r = await cli.done;
    expect({ code: r.code, signal: r.signal }, r.stderr).toEqual({ code: 0, signal: null });
    expect(await goneWithin([...workers], 3000)).toEqual([]);
  }, 120_000);

  it('SIGTERM while the command starts (the model\'s settings chosen, no server yet): it exits 0, and no worker is left', async () => {
    const workers = new Set<number>();
    let sent = false;
    const cli: LiveCli = startCli(['serve', '--api', '--no-ui', '--api-port', '0', '--model', model], (o) => {
      if (!sent && o.stderr.includes('ramforge serve: parallel')) (sent = true), cli.child.kill('SIGTERM');
    }, 60_000);
    const watch = setInterval(() => void workersOf(cli.child.pid as number).then((ws) => ws.forEach((w) => workers.add(w))), 10);
    const r = await cli.done;
    clearInterval(watch);
    expect(sent, r.stderr).toBe(true);
    expect({ code: r.code, signal: r.signal }, r.stderr).toEqual({ code: 0, signal: null });
    expect(await goneWithin([...workers], 3000)).toEqual([]);
  }, 120_000);

  it('SIGKILL of the server mid-load: the worker exits by itself', async () => {
    const { cli, workers } = await serveUntilWorker();
    cli.child.kill('SIGKILL');
    await cli.done;
    expect(await goneWithin([...workers], 5000)).toEqual([]);
  }, 120_000);
});

const capped = detectCgroup();
if (!capped.usable && process.env.CI !== 'true') console.warn(`skipping the capped serve stop test: ${capped.reason}`);
describe.runIf(built && (capped.usable || process.env.CI === 'true'))('serve --api --model under an enforced cap, stopped once loaded', () => {
  it('SIGTERM: exit 0 (the supervisor re-raised the signal once serve\'s own handler had let go: killed by SIGTERM), no memory group left', async () => {
    const cli = startCli(['serve', '--api', '--no-ui', '--api-port', '0', '--model', model, '--ram', '400M', '--enforce-ram'], (o) => {
      if (o.stderr.includes('ramforge serve: loaded')) cli.child.kill('SIGTERM');
    }, 90_000);
    const r = await cli.done;
    expect(r.stderr).toContain('ramforge serve: loaded');
    expect({ code: r.code, signal: r.signal }, r.stderr).toEqual({ code: 0, signal: null });
    expect(groupsMadeBy(cli.child.pid)).toEqual([]);
  }, 120_000);
});
