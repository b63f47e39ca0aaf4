// Load fuzzing past our reader: real models of three architectures, mutated in their values
// only (hyperparameters, token tables, tensor shapes, types and data offsets), kept when our
// hardened reader accepts them, then loaded through a real worker (and asked for two tokens
// when they load). Every case ends in a load, a refusal with a code and a reason, or a worker
// death the host reports with its reason; the host's process never dies, no case hangs (a
// case still running after a minute fails the test), and no worker is left running.
// RAMFORGE_LOAD_FUZZ_CASES sets how many accepted files are loaded (default 200).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WorkerHost } from './host.js';
import { synthesize } from '../synth/synthesize.js';
import { parseGgufHeader } from '../shared/gguf/reader.js';
import { mutateForLoad } from '../shared/gguf/load-mutations.test-util.js';
import { mulberry32 } from '../shared/seeded-random.js';
import { openModelForLoad } from '../node/model-check.js';
import type { GgufHeader } from '../shared/gguf/reader-types.js';
import { GREEDY } from '../shared/settings/run-settings.js';

const CASES = Number(process.env.RAMFORGE_LOAD_FUZZ_CASES ?? 200);
const CASE_LIMIT_MS = 60_000;
let dir = '';
const bases: { arch: string; bytes: Uint8Array; header: GgufHeader }[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ramforge-load-fuzz-'));
  // Narrow, with vocabularies of 32-50 k tokens (qwen2's own has 151 k): hundreds of loads stay quick.
  for (const [arch, vocab] of [['llama', 'llama-spm'], ['qwen2', 'deepseek-coder'], ['gptneox', 'gpt-neox']] as const) {
    const out = join(dir, `${arch}.gguf`);
    await synthesize({ arch, preset: 'tiny', type: 'Q4_0', seed: 7, out, vocab, overrides: { nEmbd: 128, nFf: 256, nLayer: 2 } });
    const bytes = new Uint8Array(readFileSync(out));
    bases.push({ arch, bytes, header: parseGgufHeader(bytes, bytes.length) });
  }
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

type Outcome = { kind: 'loaded' } | { kind: 'refused'; code: string; message: string } | { kind: 'worker-died'; message: string };

function within<T>(p: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const guard = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`hang: ${what} still running after ${CASE_LIMIT_MS} ms`)), CASE_LIMIT_MS)));
  return Promise.race([p, guard]).finally(() => clearTimeout(timer));
}

describe('load fuzzing past the reader', () => {
  it(`${CASES} mutated files the reader accepts: loaded, refused with a reason, or a reported worker death`, async () => {
    const rnd = mulberry32(20261130);
    const tally = new Map<string, number>();
    const pids: number[] = [];
    let host: WorkerHost | null = null;
    let accepted = 0;
    let tried = 0;
    const file = join(dir, 'case.gguf');
    try {
      while (accepted < CASES && tried < CASES * 50) {
        tried++;
        const base = bases[tried % bases.length]!;
        const m = mutateForLoad(base.bytes, base.header, rnd);
        if (m.what === '') continue;
        writeFileSync(file, m.bytes);
        if (!(await openModelForLoad(file).then(() => true, () => false))) continue;
        accepted++;
        if (!host || !host.isAlive()) {
          host = await WorkerHost.start();
          pids.push(host.pid);
        }
        const h: WorkerHost = host;
        const label = `case ${accepted} (${base.arch}: ${m.what})`;
        let outcome: Outcome;
        try {
          await within(h.load({ modelPath: file, ctx: 64, threads: 1 }), `${label}: load`);
          await within(h.generate({ prompt: 'Hello', maxTokens: 2, sampling: GREEDY }, () => undefined), `${label}: generate`);
          outcome = { kind: 'loaded' };
        } catch (e) {
          const err = e as { code?: string; message?: string };
          if (err.message?.startsWith('hang:')) throw e;
          if (!h.isAlive() || err.code === 'WORKER_EXITED') {
            const exit = await within(h.exited, `${label}: exit`);
            outcome = { kind: 'worker-died', message: exit.message };
          } else {
            outcome = { kind: 'refused', code: err.code ?? '', message: err.message ?? '' };
          }
        }
        if (outcome.kind === 'refused') {
          expect(outcome.code, label).toMatch(/^[A-Z_]+$/);
          expect(outcome.message.length, label).toBeGreaterThan(0);
        }
        if (outcome.kind === 'worker-died') expect(outcome.message, label).toMatch(/^the inference worker ended with /);
        const key = outcome.kind === 'refused' ? `refused ${outcome.code}` : outcome.kind;
        tally.set(key, (tally.get(key) ?? 0) + 1);
      }
    } finally {
      await host?.close();
      rmSync(file, { force: true });
    }
    console.log(`load fuzz: ${tried} mutations, ${accepted} accepted by the reader and loaded:`, Object.fromEntries(tally));
    expect(accepted).toBe(CASES);
    // Every worker this test started has ended.
    expect(pids.filter((p) => existsSync(`/proc/${p}`) && !readFileSync(`/proc/${p}/stat`, 'utf8').includes(') Z '))).toEqual([]);
    // A bound on the whole run, well above what it takes (about half a second a case on two
    // cores); each case has its own hang guard.
  }, 60_000 + CASES * 5_000);
});
