// Speculative decoding end to end through the built CLI: greedy tokens with a draft are the
// target's own (llama, qwen2, gptneox; under `off` and under `stream` with weights really
// streamed), drafts made with `synth --draft-of` share every weight, the target itself as its
// own draft keeps every proposal (several tokens per pass), and a draft with another
// vocabulary is refused with exit 2 before anything loads.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../built-cli.test-util.js';
import { synthesize } from '../../synth/synthesize.js';
import { writeDraftOf } from '../../synth/draft-of.js';

const ARCHS = ['llama', 'qwen2', 'gptneox'] as const;
let dir = '';
const target = (a: string) => join(dir, `${a}.gguf`);
const draft = (a: string) => join(dir, `${a}-draft.gguf`);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ramforge-draft-'));
  for (const arch of ARCHS) {
    await synthesize({ arch, preset: 'tiny', type: 'Q4_0', seed: 11, out: target(arch), overrides: { nLayer: 4 } });
    await writeDraftOf(target(arch), 2, draft(arch));
  }
  // Same tokenizer, weights of another seed: it (almost) never proposes the target's token, and
  // as large as the target, each drafted token costs about a pass.
  await synthesize({ arch: 'llama', preset: 'tiny', type: 'Q4_0', seed: 12, out: join(dir, 'stranger.gguf'), overrides: { nLayer: 4 } });
}, 300_000);
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface Tokens {
  token_ids: number[];
  draft?: { drafted: number; accepted: number; target_passes: number; tokens_per_target_pass: number | null };
}

function run(model: string, extra: string[]): Tokens {
  const out = join(dir, `t-${Math.random().toString(36).slice(2)}.json`);
  const r = runCli(['run', model, '-p', 'Once upon a time', '-n', '40', '--temperature', '0', '--tokens-json', out, '-q', ...extra], { timeoutMs: 240_000 });
  expect(r.stderr).not.toMatch(/error|killed/i);
  expect(r.code).toBe(0);
  return JSON.parse(readFileSync(out, 'utf8')) as Tokens;
}

// Streaming for real without a cap: a budget makes the plan stream, the run is not held to it.
const STREAM = ['--policy', 'stream', '--ram', '24M'];

describe('speculative decoding (--draft)', () => {
  for (const arch of ARCHS)
    for (const [name, flags] of [
      ['off', ['--policy', 'off']],
      ['stream', STREAM],
    ] as const)
      it(`${arch} under ${name}: the tokens with a draft are the target's own`, () => {
        const alone = run(target(arch), [...flags]);
        // At least 2 drafted a pass: every verify pass checks several positions, so rejections
        // and the KV rollback are exercised (the adaptive k alone would draft little here).
        const drafted = run(target(arch), [...flags, '--draft', draft(arch), '--draft-min', '2']);
        expect(alone.token_ids.length).toBeGreaterThan(8);
        expect(drafted.token_ids).toEqual(alone.token_ids);
        expect(drafted.draft?.target_passes).toBeGreaterThan(0);
        expect(drafted.draft!.drafted).toBeGreaterThanOrEqual(2 * drafted.draft!.target_passes);
        expect(alone.draft).toBeUndefined();
      }, 300_000);

  it('the target as its own draft keeps every proposal: several tokens per verify pass, same tokens', () => {
    const alone = run(target('llama'), STREAM);
    // k fixed at 4: the adaptive choice would draft less, each drafted token costing a full pass here.
    const self = run(target('llama'), [...STREAM, '--draft', target('llama'), '--draft-max', '4', '--draft-min', '4']);
    expect(self.token_ids).toEqual(alone.token_ids);
    const d = self.draft!;
    expect(d.drafted).toBeGreaterThan(0);
    expect(d.accepted).toBe(d.drafted);
    expect(d.tokens_per_target_pass).toBeGreaterThan(4);
  }, 300_000);

  it('a draft that is never accepted is turned down: most passes draft nothing, the tokens stay the target\'s', () => {
    const alone = run(target('llama'), ['--policy', 'off', '-n', '64']);
    const d = run(target('llama'), ['--policy', 'off', '-n', '64', '--draft', join(dir, 'stranger.gguf')]);
    expect(d.token_ids).toEqual(alone.token_ids);
    const s = d.draft!;
    expect(s.target_passes).toBeGreaterThan(32);
    // The first passes draft (the prior acceptance is 1/2), then k falls to 0 with one probe
    // every 16 passes; a length chosen from acceptance alone would draft on every pass.
    expect(s.drafted).toBeLessThan(s.target_passes / 2);
    expect(s.accepted).toBeLessThan(s.drafted);
  }, 300_000);

  it('a draft with another vocabulary is refused with exit 2 before anything loads', () => {
    const r = runCli(['run', target('llama'), '-p', 'Hi', '-n', '4', '--draft', target('qwen2')], { timeoutMs: 120_000 });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--draft .* cannot propose tokens for this model: .*differ/);
    expect(r.stderr).not.toMatch(/loading/);
  });

  it('--draft with --parallel above 1 is a usage error', () => {
    const r = runCli(['run', target('llama'), '-p', 'Hi', '-n', '4', '--draft', draft('llama'), '--parallel', '2'], { timeoutMs: 120_000 });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/parallel/);
  });
});
