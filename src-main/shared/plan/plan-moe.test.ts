import { describe, expect, it } from 'vitest';
import Ajv from 'ajv';
import { planMemory, type MemoryPlan } from './plan.js';
import { PLAN_JSON_SCHEMA } from './plan-schema.js';
import { headerOnlyView, type TinyOptions } from '../gguf/tiny-models.test-util.js';
import { expertPopularity, lruHitRate, bestHitRate } from '../moe/routing-model.js';

const GiB = 1024 ** 3;
const validate = new Ajv({ allErrors: true, strict: false }).compile(PLAN_JSON_SCHEMA);

// The Mixtral-layout model: about 1.2 GiB at Q4_0, 16 experts of which 2 route.
const mixtral = (experts: TinyOptions['experts'] = { count: 16, used: 2, skew: 0.35 }) =>
  headerOnlyView({ arch: 'llama', layers: 16, embd: 1024, heads: 16, kvHeads: 4, ff: 2816, vocab: 32000, matType: 2, experts });
const input = { ctx: 1024, diskBandwidthBytesPerS: 1.3 * GiB, prefetchDepth: 2, readaheadBytes: 0 };

function valid(p: MemoryPlan): MemoryPlan {
  expect(validate(JSON.parse(JSON.stringify(p))), JSON.stringify(validate.errors)).toBe(true);
  return p;
}

describe('planMemory for a mixture of experts', () => {
  it('locks the dense part, caches experts with the rest, and predicts bytes/token from the routing', () => {
    const v = mixtral();
    const m = v.moe!;
    const cap = Math.floor(v.fileBytes / 2);
    const p = valid(planMemory(v, { ...input, ramBytes: cap }));
    expect(p.verdict).toBe('out-of-core');
    const e = p.moe!;
    expect(e.expertCount).toBe(16);
    expect(e.expertUsedCount).toBe(2);
    expect(e.layers).toEqual(Array.from({ length: 16 }, (_, i) => i));
    expect(e.expertTensors).toHaveLength(48);
    expect(e.expertTensors.every((t) => /_exps\.weight$/.test(t))).toBe(true);
    const Q = e.quantities;
    const bpe = m.bytesPerExpert;
    // The dense part is locked before any expert: fixed RAM + every non-expert layer tensor.
    const dense = v.layers.reduce((s, l) => s + l.bytes, 0) - m.expertBytes;
    expect(Q.denseLayerBytes.value).toBe(dense);
    expect(Q.lockedBytes.value).toBe((p.quantities.fixedRamBytes.value as number) + dense);
    // One layer's every expert: a micro-batch routed to more than the cache holds is computed from it.
    expect(Q.stagingBytes.value).toBe(16 * bpe);
    expect(Q.expertCacheBytes.value).toBe(cap - (Q.lockedBytes.value as number) - (Q.stagingBytes.value as number) - (p.quantities.headroomBytes.value as number));
    expect(e.cacheExpertsPerLayer).toBe(Math.floor((Q.expertCacheBytes.value as number) / (16 * bpe)));
    expect(e.cacheExpertsPerLayer).toBeGreaterThan(0);
    expect(e.cacheExpertsPerLayer).toBeLessThan(16);
    // The synthetic routing the file records, and an LRU cache of that size under it.
    expect(e.routing.source).toBe('synthetic-skew');
    expect(e.routing.skew).toBeCloseTo(0.35, 6);
    const hit = lruHitRate(expertPopularity(16, 2, e.routing.skew as number), e.cacheExpertsPerLayer);
    expect(Q.hitRate.value).toBeCloseTo(hit, 12);
    const routed = 16 * 2 * bpe;
    expect(Q.bytesReadPerToken.value).toBe(Math.round(routed * (1 - hit)));
    // The plan's own per-token figures are the MoE's, under the active bytes of a token.
    expect(p.quantities.bytesReadPerToken.value).toBe(Q.bytesReadPerToken.value);
    expect(p.quantities.bytesReadPerToken.value).toBeLessThan(m.activeBytesPerToken as number);
    expect(p.quantities.predictedDecodeTokS.value).toBe(Q.predictedDecodeTokS.value);
    expect(p.quantities.bytesReadPerToken.formula).toMatch(/expert cache of \d+ of 16 experts per layer/);
    expect(p.reason).toMatch(/expert cache holds \d+ of 16 experts in each of 16 layers/);
  });

  it("the floor is the MoE's: routed experts the best cache the cap allows cannot hold, not the dense floor", () => {
    const v = mixtral();
    const cap = Math.floor(v.fileBytes / 2);
    const p = planMemory(v, { ...input, ramBytes: cap });
    const dense = planMemory({ ...v, moe: null }, { ...input, ramBytes: cap });
    const Q = p.moe!.quantities;
    const room = cap - (Q.lockedBytes.value as number);
    const bpe = v.moe!.bytesPerExpert;
    const most = Math.min(16, Math.floor(room / (16 * bpe)));
    const best = bestHitRate(expertPopularity(16, 2, p.moe!.routing.skew as number), most);
    expect(p.quantities.floorBytesPerToken.value).toBe(Math.round(16 * 2 * bpe * (1 - best)));
    expect(p.quantities.floorBytesPerToken.value).toBeLessThanOrEqual(p.quantities.bytesReadPerToken.value as number);
    expect(p.quantities.floorBytesPerToken.value).toBeLessThan(dense.quantities.floorBytesPerToken.value as number);
    expect(p.quantities.floorBytesPerToken.formula).toMatch(/^mixture of experts: routed experts not held/);
  });

  it('keeps the schedule the runtime executes (layers, tiers, stream, verdict) and reports what it reads', () => {
    const v = mixtral();
    const cap = Math.floor(v.fileBytes / 2);
    const p = planMemory(v, { ...input, ramBytes: cap });
    const dense = planMemory({ ...v, moe: null }, { ...input, ramBytes: cap });
    expect(p.layers).toEqual(dense.layers);
    expect(p.tiers).toEqual(dense.tiers);
    expect(p.stream).toEqual(dense.stream);
    expect(p.verdict).toBe(dense.verdict);
    expect(p.moe!.quantities.tensorScheduleBytesPerToken.value).toBe(dense.quantities.bytesReadPerToken.value);
    expect(p.notes.some((n) => /served by the expert cache/.test(n))).toBe(true);
    // A dense plan has no moe section at all.
    expect('moe' in dense).toBe(false);
  });

  it('uniform routing when the model records none: an LRU cache of C of n experts hits C / n', () => {
    const v = mixtral({ count: 16, used: 2 });
    const p = valid(planMemory(v, { ...input, ramBytes: Math.floor(v.fileBytes / 2) }));
    const e = p.moe!;
    expect(e.routing.source).toBe('uniform');
    expect(e.routing.skew).toBeNull();
    expect(e.quantities.hitRate.value).toBeCloseTo(e.cacheExpertsPerLayer / 16, 6);
    expect(e.routing.description).toMatch(/uniform/);
  });

  it('fits: every expert cached, nothing read; cannot-run: no speed, the expert cache minimum reported', () => {
    const v = mixtral();
    const fits = valid(planMemory(v, { ...input, ramBytes: 8 * GiB }));
    expect(fits.verdict).toBe('fits');
    expect(fits.moe!.cacheExpertsPerLayer).toBe(16);
    expect(fits.moe!.quantities.hitRate.value).toBe(1);
    expect(fits.quantities.bytesReadPerToken.value).toBe(0);
    expect(fits.quantities.floorBytesPerToken.value).toBe(0);
    const low = valid(planMemory(v, { ...input, ramBytes: 64 * 1024 ** 2 }));
    expect(low.verdict).toBe('cannot-run');
    expect(low.quantities.predictedDecodeTokS.value).toBeNull();
    expect(low.moe!.cacheExpertsPerLayer).toBe(0);
    expect(low.moe!.quantities.minimumRamBytes.value).toBeGreaterThan(low.moe!.quantities.lockedBytes.value as number);
  });

  it('between the whole-tensor minimum and the expert cache\'s, the plan says the experts stream as whole tensors, with that schedule\'s figures (it said expert cache while the runtime fell back)', () => {
    const v = mixtral();
    const low = planMemory(v, { ...input, ramBytes: 1024 ** 2 });
    const cacheMin = low.moe!.quantities.minimumRamBytes.value as number;
    const least = low.quantities.minimumRamBytes.value as number;
    expect(least).toBeLessThan(cacheMin);
    const cap = Math.round((least + cacheMin) / 2);
    const p = valid(planMemory(v, { ...input, ramBytes: cap }));
    expect(p.verdict).toBe('out-of-core');
    expect(p.notes.join(' ')).toMatch(/experts stream as whole tensors/);
    expect(p.quantities.bytesReadPerToken.formula).not.toMatch(/expert cache/);
    expect(p.quantities.bytesReadPerToken.formula).toMatch(/streamed tensors' bytes/);
    expect(valid(planMemory(v, { ...input, ramBytes: cacheMin })).quantities.bytesReadPerToken.formula).toMatch(/expert cache/);
    // Below both minimums: refused, naming the smaller.
    const below = valid(planMemory(v, { ...input, ramBytes: least - 1024 ** 2 }));
    expect(below.verdict).toBe('cannot-run');
    expect(below.quantities.minimumRamBytes.value).toBe(least);
  });

  it('a cap below the locked dense part: the part that does not fit is read every token too', () => {
    const v = mixtral();
    const probe = planMemory(v, { ...input, ramBytes: Math.floor(v.fileBytes / 2) });
    const locked = probe.moe!.quantities.lockedBytes.value as number;
    const cap = locked - 20 * 1024 ** 2;
    const p = valid(planMemory(v, { ...input, ramBytes: cap }));
    const Q = p.moe!.quantities;
    expect(p.moe!.cacheExpertsPerLayer).toBe(0);
    const overflow = (Q.lockedBytes.value as number) + (Q.stagingBytes.value as number) + (p.quantities.headroomBytes.value as number) - cap;
    expect(Q.bytesReadPerToken.value).toBe(16 * 2 * v.moe!.bytesPerExpert + overflow);
    expect(Q.bytesReadPerToken.formula).toMatch(/dense weights beyond the cap/);
  });

  it('shared experts are locked with the dense part', () => {
    const v = headerOnlyView({ arch: 'llama', layers: 4, embd: 512, heads: 8, kvHeads: 2, ff: 1024, vocab: 32000, matType: 2, experts: { count: 8, used: 2, sharedFf: 1024 } });
    const p = valid(planMemory(v, { ...input, ramBytes: Math.floor(v.fileBytes / 2) }));
    expect(p.moe!.expertSharedCount).toBe(1);
    const dense = v.layers.reduce((s, l) => s + l.bytes, 0) - v.moe!.expertBytes;
    expect(p.moe!.quantities.denseLayerBytes.value).toBe(dense);
    expect(dense).toBeGreaterThan(v.moe!.sharedExpertBytes);
  });
});

describe('planMemory with a measured compute term', () => {
  it("an expert cache predicts the measured compute plus the misses' reads; the dense schedule the larger of its reads and the compute", () => {
    const v = mixtral();
    const cap = Math.floor(v.fileBytes / 2);
    const modelled = planMemory(v, { ...input, ramBytes: cap });
    const measuredCompute = { secondsPerToken: 0.05, source: 'measured now on the shadow' };
    const p = valid(planMemory(v, { ...input, ramBytes: cap, measuredCompute }));
    const read = p.quantities.bytesReadPerToken.value as number;
    expect(read).toBe(modelled.quantities.bytesReadPerToken.value);
    expect(read).toBeGreaterThan(0);
    // Reads wait for their router, so they add to the compute rather than hide behind it.
    expect(p.quantities.predictedDecodeTokS.value).toBeCloseTo(1 / (0.05 + read / input.diskBandwidthBytesPerS), 6);
    expect(p.quantities.predictedDecodeTokS.formula).toMatch(/compute 50\.0 ms \(measured now on the shadow\) \+ misses/);
    // A dense model streams ahead of its compute: the slower of the two.
    const dense = headerOnlyView({ arch: 'llama', layers: 16, embd: 1024, heads: 16, kvHeads: 4, ff: 2816, vocab: 32000, matType: 2 });
    const probe = planMemory(dense, { ...input, ramBytes: dense.fileBytes });
    const between = Math.floor(((probe.quantities.minimumRamBytes.value as number) + (probe.quantities.fullResidencyRamBytes.value as number)) / 2);
    const d = valid(planMemory(dense, { ...input, ramBytes: between, measuredCompute }));
    expect(d.verdict).toBe('out-of-core');
    const streamed = d.quantities.bytesReadPerToken.value as number;
    expect(d.quantities.predictedDecodeTokS.value).toBeCloseTo(1 / Math.max(0.05, streamed / input.diskBandwidthBytesPerS), 6);
    expect(d.quantities.predictedDecodeTokS.formula).toMatch(/compute 50\.0 ms \(measured now on the shadow\)/);
  });
});

describe("planMemory with the device's rate in reads of one expert", () => {
  it("reads the misses at that rate, named in the prediction's formula", () => {
    const v = mixtral();
    const cap = Math.floor(v.fileBytes / 2);
    const measuredCompute = { secondsPerToken: 0.05, source: 'measured now on the shadow' };
    const expertRead = { bytesPerS: 0.25 * GiB, source: 'measured now with 864 KiB reads' };
    const p = valid(planMemory(v, { ...input, ramBytes: cap, measuredCompute, expertRead }));
    const read = p.quantities.bytesReadPerToken.value as number;
    expect(p.quantities.predictedDecodeTokS.value).toBeCloseTo(1 / (0.05 + read / (0.25 * GiB)), 6);
    expect(p.quantities.predictedDecodeTokS.formula).toMatch(/in reads of one expert \(measured now with 864 KiB reads\)/);
  });
});

describe('planMemory with the share of reads earlier runs read ahead', () => {
  it("overlaps that share of the misses' reads with the compute; a replayed trace reads nothing ahead", () => {
    const v = mixtral();
    const cap = Math.floor(v.fileBytes / 2);
    const measuredCompute = { secondsPerToken: 0.05, source: 'measured now on the shadow' };
    const p = valid(planMemory(v, { ...input, ramBytes: cap, measuredCompute, readAheadShare: 0.9 }));
    const io = (p.quantities.bytesReadPerToken.value as number) / input.diskBandwidthBytesPerS;
    expect(p.quantities.predictedDecodeTokS.value).toBeCloseTo(1 / (Math.max(0.05, 0.9 * io) + 0.1 * io), 6);
    expect(p.quantities.predictedDecodeTokS.formula).toMatch(/^1 \/ \(max\(compute 50\.0 ms .*, 90 % read ahead of misses .*as earlier runs of this file read ahead\) \+ the rest/);
    const none = valid(planMemory(v, { ...input, ramBytes: cap, measuredCompute, readAheadShare: 0 }));
    expect(none.quantities.predictedDecodeTokS.value).toBeCloseTo(1 / (0.05 + io), 6);
  });
});
