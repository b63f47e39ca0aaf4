// `ramforge serve --api` under load inside its enforced cap: 32 clients stream chat completions in
// a loop for a bounded time, a third of them leaving mid-stream. Every request is answered
// (complete, or the documented 429 of a full queue) or cancelled cleanly, none hangs; the cap
// kills nothing; the worker is the same process at the end and still answers; its memory does not
// grow once warm (a leak per cancelled request would show as a rising group charge).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { childPids, cliBuiltOrSkip, runCli } from '../built-cli.test-util.js';
import { serveApi, stopServed, synthModel, type Served } from './serve-api.test-util.js';
import { detectCgroup } from '../../supervisor/index.js';
import { parseProcCgroup, v1MemoryPath, v2Path } from '../../shared/cgroup/proc-cgroup.js';
import { parseMemoryEvents, parseOomControl } from '../../shared/cgroup/control-files.js';

const CLIENTS = 32;
/** A third of the clients abort their request after this many chunks. */
const CANCELLERS = Math.round(CLIENTS / 3);
const CANCEL_AFTER_CHUNKS = 3;
const LOAD_MS = 90_000;
/** "Flat after the first minute": the charge past it is held to a tighter margin too. */
const MINUTE_MS = 60_000;
const LATE_MARGIN_BYTES = 4 * 1024 * 1024;
/** No request may take longer: a hang ends as a failed assertion. */
const REQUEST_DEADLINE_MS = 30_000;
const PARALLEL = 4;
const CTX = 1024;
/**
 * Growth allowed between the first and last third of the load (medians of the group's charge).
 * Measured here (2 cores, 60 s, ~1500-1900 requests of which ~550-700 cancelled): 0.84, 2.38 and
 * 2.55 MiB over three runs, the charge by sixths flat within ±0.6 MiB after the first (the worker's
 * RSS likewise, ~100 MiB with the mapped model). One KV sequence is 1 MiB here: a sequence or
 * generation buffer leaked per cancelled request would be hundreds of MiB (an OOM kill under this
 * cap), and 8 MiB still catches a leak of ~15 KiB per cancelled request.
 */
const FLAT_MARGIN_BYTES = 8 * 1024 * 1024;

const built = cliBuiltOrSkip('the API load test');
const cgroup = detectCgroup();
if (!cgroup.usable && process.env.CI !== 'true') console.warn(`skipping the capped API load test: ${cgroup.reason}`);

let dir = '';
let served: Served | undefined;

afterAll(async () => {
  await stopServed(served);
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** The worker of a `serve` process: its one child running the worker bundle. */
function workerPid(servePid: number): number {
  const pid = childPids(servePid).find((p) => {
    try {
      return readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('worker.mjs');
    } catch {
      return false;
    }
  });
  if (pid === undefined) throw new Error(`serve (pid ${servePid}) has no worker`);
  return pid;
}

/** The memory group a process is in: its charge now and the OOM kills it has seen. */
function groupOf(pid: number): { usage(): number; oomKills(): number } {
  if (!cgroup.usable) throw new Error(cgroup.reason);
  const own = parseProcCgroup(readFileSync(`/proc/${pid}/cgroup`, 'utf8'));
  const rel = cgroup.version === 2 ? v2Path(own) : v1MemoryPath(own);
  if (rel === null) throw new Error(`pid ${pid} is in no memory group`);
  const dirOf = join(cgroup.mountPoint, rel);
  const read = (f: string) => readFileSync(join(dirOf, f), 'utf8');
  return cgroup.version === 2
    ? { usage: () => Number(read('memory.current')), oomKills: () => parseMemoryEvents(read('memory.events')).oom_kill ?? 0 }
    : { usage: () => Number(read('memory.usage_in_bytes')), oomKills: () => parseOomControl(read('memory.oom_control')).oom_kill ?? 0 };
}

type Outcome = 'complete' | 'cancelled' | 'refused' | 'failed' | 'hung';

/** One streamed chat request; `cancelAfter` chunks in, the client leaves (aborts the request). */
async function streamOnce(url: string, cancelAfter: number | null): Promise<{ outcome: Outcome; detail: string }> {
  const ctl = new AbortController();
  let hung = false;
  const deadline = setTimeout(() => ((hung = true), ctl.abort()), REQUEST_DEADLINE_MS);
  try {
    const r = await fetch(`${url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'load', messages: [{ role: 'user', content: 'Tell me a story.' }], max_tokens: 24, stream: true }),
      signal: ctl.signal,
    });
    if (r.status === 429) return { outcome: 'refused', detail: await r.text() };
    if (r.status !== 200 || !r.body) return { outcome: 'failed', detail: `${r.status} ${await r.text()}` };
    let text = '';
    let chunks = 0;
    const decoder = new TextDecoder();
    const reader = r.body.getReader();
    for (let part = await reader.read(); !part.done; part = await reader.read()) {
      text += decoder.decode(part.value, { stream: true });
      chunks = text.split('\n\n').filter((e) => e.startsWith('data: {')).length;
      if (cancelAfter !== null && chunks >= cancelAfter) {
        ctl.abort();
        return { outcome: 'cancelled', detail: '' };
      }
    }
    return text.trimEnd().endsWith('data: [DONE]') ? { outcome: 'complete', detail: '' } : { outcome: 'failed', detail: `stream ended without [DONE] after ${chunks} chunks` };
  } catch (e) {
    if (hung) return { outcome: 'hung', detail: `no end within ${REQUEST_DEADLINE_MS / 1000} s` };
    if (ctl.signal.aborted) return { outcome: 'cancelled', detail: '' };
    return { outcome: 'failed', detail: (e as Error).message };
  } finally {
    clearTimeout(deadline);
  }
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
};

describe.skipIf(!built || (!cgroup.usable && process.env.CI !== 'true'))('serve --api under an enforced cap, 32 clients, a third cancelling', () => {
  let capBytes = 0;
  beforeAll(async () => {
    if (!cgroup.usable) throw new Error(`CI=true but no memory cgroup can be made: ${cgroup.reason}`);
    dir = await mkdtemp(join(tmpdir(), 'ramforge-api-load-'));
    const model = synthModel(dir, 'load.gguf', ['--seed', '7']);
    // The cap: the smallest the plan names for this shape (PARALLEL sequences of CTX), planned
    // as serve loads it (--serve: the embeddings context counted).
    const plan = (ram: string) => runCli(['plan', model, '--ram', ram, '--parallel', String(PARALLEL), '-c', String(CTX), '--serve', '--json']);
    const named = plan('1M');
    expect(named.code, named.stderr).toBe(0);
    capBytes = (JSON.parse(named.stdout) as { quantities: { minimumRamBytes: { value: number } } }).quantities.minimumRamBytes.value;
    expect((JSON.parse(plan(String(capBytes)).stdout) as { verdict: string }).verdict).not.toBe('cannot-run');
    // A queue for every client beyond the sequences: each request waits its turn, none is refused
    // for load alone (a 429 would still be a clean answer, docs/api.md).
    served = await serveApi(dir, ['--model', model, '--ram', String(capBytes), '--enforce-ram', '--parallel', String(PARALLEL), '-c', String(CTX), '--api-queue', String(CLIENTS)]);
  }, 180_000);

  it('every request answered or cancelled cleanly, no OOM kill, the same worker alive after, memory flat once warm', async () => {
    const s = served as Served;
    const pid = workerPid(s.child.pid as number);
    const group = groupOf(pid);
    const usage: { t: number; bytes: number }[] = [];
    const t0 = Date.now();
    const sampler = setInterval(() => usage.push({ t: Date.now() - t0, bytes: group.usage() }), 250);
    const outcomes: { outcome: Outcome; detail: string }[] = [];
    const client = async (i: number): Promise<void> => {
      while (Date.now() - t0 < LOAD_MS) {
        const o = await streamOnce(s.url, i < CANCELLERS ? CANCEL_AFTER_CHUNKS : null);
        outcomes.push(o);
        // A refused client backs off, as OpenAI's clients do on 429.
        if (o.outcome === 'refused') await new Promise((r) => setTimeout(r, 200));
      }
    };
    try {
      await Promise.all(Array.from({ length: CLIENTS }, (_, i) => client(i)));
    } finally {
      clearInterval(sampler);
    }
    const count = (o: Outcome) => outcomes.filter((x) => x.outcome === o).length;
    const bad = outcomes.filter((x) => x.outcome === 'failed' || x.outcome === 'hung');
    expect(bad.slice(0, 5), `${bad.length} of ${outcomes.length} requests failed or hung`).toEqual([]);
    expect(count('complete')).toBeGreaterThan(0);
    expect(count('cancelled')).toBeGreaterThan(0);
    for (const r of outcomes.filter((x) => x.outcome === 'refused')) expect(JSON.parse(r.detail)).toMatchObject({ error: { code: 'queue_full' } });

    expect(group.oomKills()).toBe(0);
    expect(workerPid(s.child.pid as number)).toBe(pid);
    expect((await streamOnce(s.url, null)).outcome).toBe('complete');

    // Warm-up: the first 10 s (the KV cache and buffers of every sequence touched by then).
    const warm = usage.filter((u) => u.t >= 10_000);
    const third = Math.floor(warm.length / 3);
    const first = median(warm.slice(0, third).map((u) => u.bytes));
    const last = median(warm.slice(-third).map((u) => u.bytes));
    console.log(`api load: ${outcomes.length} requests (${count('complete')} complete, ${count('cancelled')} cancelled, ${count('refused')} refused); cap ${capBytes} B; group charge median ${first} B → ${last} B (${((last - first) / 1024 / 1024).toFixed(2)} MiB)`);
    expect(third).toBeGreaterThan(10);
    expect(last - first).toBeLessThanOrEqual(FLAT_MARGIN_BYTES);
    // After the first minute: the last third of what is left no higher than its first third.
    const late = usage.filter((u) => u.t >= MINUTE_MS);
    const lateThird = Math.floor(late.length / 3);
    const lateGrowth = median(late.slice(-lateThird).map((u) => u.bytes)) - median(late.slice(0, lateThird).map((u) => u.bytes));
    console.log(`api load: after the first minute the charge moved ${(lateGrowth / 1024 / 1024).toFixed(2)} MiB`);
    expect(lateThird).toBeGreaterThan(5);
    expect(lateGrowth).toBeLessThanOrEqual(LATE_MARGIN_BYTES);
  }, LOAD_MS + 2 * REQUEST_DEADLINE_MS + 30_000);
});
