// The pure side of draft models, on real synthetic GGUF headers: the subset a draft of the
// target's first layers keeps, which tensors a draft can share, the vocabulary check, and what
// the plan says a draft costs and whether it can pay off.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { synthesize } from '../../synth/synthesize.js';
import { writeDraftOf } from '../../synth/draft-of.js';
import { openGgufModel, type OpenedModel } from '../../node/gguf-file.js';
import { planDraftSubset, DraftSubsetError } from './draft-subset.js';
import { sharedTensorCandidates } from './shared-tensors.js';
import { vocabMismatch } from './vocab-match.js';
import { draftPlanInput } from './draft-budget.js';
import { planMemory } from '../plan/plan.js';
import { kvInteger } from '../gguf/metadata.js';
import { chooseRunShape, MIN_UBATCH } from '../settings/run-shape.js';
import { DEFAULT_RUN_SETTINGS } from '../settings/run-settings.js';

let dir = '';
let target: OpenedModel;
let draft: OpenedModel;
let other: OpenedModel;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ramforge-draft-unit-'));
  await synthesize({ arch: 'llama', preset: 'small', type: 'Q4_0', seed: 3, out: join(dir, 't.gguf'), overrides: { nLayer: 16 } });
  await writeDraftOf(join(dir, 't.gguf'), 2, join(dir, 'd.gguf'));
  await synthesize({ arch: 'qwen2', preset: 'tiny', type: 'Q4_0', seed: 3, out: join(dir, 'q.gguf') });
  [target, draft, other] = await Promise.all(['t', 'd', 'q'].map((n) => openGgufModel(join(dir, `${n}.gguf`))));
}, 300_000);
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a draft of the target’s first layers', () => {
  it('keeps the embeddings, the head and blocks 0..N-1 with the block count rewritten', () => {
    const h = draft.shards[0]!.header;
    expect(kvInteger(h, 'llama.block_count')).toBe(2);
    const names = h.tensors.map((t) => t.name);
    expect(names).toContain('token_embd.weight');
    expect(names).toContain('output.weight');
    expect(names.some((n) => n.startsWith('blk.1.'))).toBe(true);
    expect(names.some((n) => n.startsWith('blk.2.'))).toBe(false);
  });

  it('refuses a layer count the target does not have', () => {
    expect(() => planDraftSubset(target.shards[0]!.header, 16)).toThrow(DraftSubsetError);
    expect(() => planDraftSubset(target.shards[0]!.header, 0)).toThrow(/--layers must be from 1 to 15/);
  });

  it('shares every one of its tensors with the target, at the target’s offsets', () => {
    const c = sharedTensorCandidates(target.shards, draft.shards);
    expect(c.map((x) => x.name).sort()).toEqual(draft.shards[0]!.header.tensors.map((t) => t.name).sort());
    const t = target.shards[0]!.header.tensors.find((x) => x.name === 'blk.1.ffn_up.weight')!;
    expect(c.find((x) => x.name === t.name)?.targetStart).toBe(t.start);
  });

  it('speaks the target’s vocabulary; another model’s does not', () => {
    expect(vocabMismatch(target.shards[0]!.header, draft.shards[0]!.header)).toBeNull();
    expect(vocabMismatch(target.shards[0]!.header, other.shards[0]!.header)).toMatch(/differ/);
  });
});

describe('the plan with a draft', () => {
  const input = { ramBytes: 0, ctx: 512, ubatch: 32, diskBandwidthBytesPerS: 2e9 };
  const withDraft = (ram: number) =>
    planMemory(target.view, { ...input, ramBytes: ram, draft: draftPlanInput(target, { path: 'd.gguf', shards: draft.shards, view: draft.view }, { ctx: 512, max: 8 }) });

  it('holds the shared layers resident and counts the draft’s overhead: more is read per pass than without it', () => {
    const alone = planMemory(target.view, { ...input, ramBytes: 150 * 1024 * 1024 });
    const p = withDraft(150 * 1024 * 1024);
    expect(alone.verdict).toBe('out-of-core');
    expect(p.verdict).toBe('out-of-core');
    expect(p.draft).not.toBeNull();
    const d = p.draft!;
    expect(d.sharedBytes.value).toBe(draft.shards[0]!.header.tensorBytes);
    expect(d.ownWeightBytes.value).toBe(0);
    expect(p.stream?.tensors.some((n) => n.startsWith('blk.0.') || n.startsWith('blk.1.'))).toBe(false);
    expect(p.quantities.bytesReadPerToken.value!).toBeGreaterThan(alone.quantities.bytesReadPerToken.value!);
    expect(d.extraReadPerPassBytes.value).toBe(p.quantities.bytesReadPerToken.value! - alone.quantities.bytesReadPerToken.value!);
    expect(d.breakEvenTokensPerPass.value!).toBeGreaterThan(1);
    expect(d.pays).toBe(true);
    expect(d.reason).toMatch(/pays off once a pass yields more than/);
  });

  it('says when the draft does not fit beside the model', () => {
    const p = withDraft(100 * 1024 * 1024);
    expect(p.verdict).toBe('cannot-run');
    expect(p.draft?.pays).toBe(false);
    expect(p.draft?.reason).toMatch(/does not fit/);
  });
});

describe('the run shape with a draft', () => {
  const draftAt = (max: number) => (ctx: number) => draftPlanInput(target, { path: 'd.gguf', shards: draft.shards, view: draft.view }, { ctx, max });
  const shape = (ram: number, max: number) =>
    chooseRunShape({ view: target.view, settings: { ...DEFAULT_RUN_SETTINGS, ramBytes: ram }, physicalCores: 2, draft: draftAt(max) });
  const runs = (ram: number, ctx: number, ubatch: number, max: number) =>
    planMemory(target.view, { ramBytes: ram, ctx, ubatch, diskBandwidthBytesPerS: 2e9, draft: draftAt(max)(ctx) }).verdict !== 'cannot-run';

  it('goes below the micro-batch floor only when ctx 256 is not enough, and never below the verify pass (max + 1 positions)', () => {
    // The smallest cap at which the draft runs with ctx 256 and the floor micro-batch.
    let floorCap = 64 * 1024 * 1024;
    while (!runs(floorCap, 256, MIN_UBATCH, 8)) floorCap += 1024 * 1024;
    const atFloor = shape(floorCap, 8);
    expect(atFloor.batch).toBe(MIN_UBATCH);
    const below = shape(floorCap - 2 * 1024 * 1024, 8);
    expect(below.ctx).toBe(256);
    expect(below.batch).toBeLessThan(MIN_UBATCH);
    expect(below.batch).toBeGreaterThanOrEqual(9);
    expect(below.reasons.some((r) => /beside the draft: its verify pass needs 9 positions/.test(r))).toBe(true);
    expect(runs(floorCap - 2 * 1024 * 1024, below.ctx, below.batch, 8)).toBe(true);
    // With 16 drafted tokens a verify pass is 17 positions: the micro-batch stays at 32.
    expect(shape(floorCap - 2 * 1024 * 1024, 16).batch).toBe(MIN_UBATCH);
  });
});
