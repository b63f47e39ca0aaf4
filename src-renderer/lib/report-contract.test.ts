// A report typed with the report's own type (src-main/shared/report/report-types.ts): if the
// schema-v1 shape changes, this stops compiling; the assertions check what the UI reads.
import { describe, expect, it } from 'vitest';
import type { RunReport } from '../../src-main/shared/report/report-types.js';
import { reportDashboard } from './dashboard-model.js';
import { normalizeReport } from './report-model.js';

const report: RunReport = {
  schema_version: 1,
  kind: 'run',
  created_at: '2026-11-29T09:00:00Z',
  tool: { name: 'ramforge', version: '0.1.0', llama_cpp: 'v0.5.0' },
  model: { path: '/m/tiny.gguf', name: null, architecture: 'llama', file_bytes: 1000, tensor_bytes: 900, n_layers: 2, n_params: 10, shards: [] },
  config: { policy: 'stream', ram_bytes: 500, enforce_ram: true, ctx: 256, batch: 32, threads: 2, mmap: true, repack: true, prefault: false, prefetch_depth: 2, max_tokens: 4, sampling: {}, chat: false },
  plan: null,
  outcome: { status: 'ok', exit_code: 0, message: null },
  generation: { prompt_tokens: 3, prompt_token_ids: [1, 2, 3], generated_tokens: 2, token_ids: [7, 8], text: 'hi', stop_reason: 'max_tokens', load_ms: 5, ttft_ms: 12, prompt_tok_s: 100, decode_tok_s: 9, per_token_ms: [100, 110] },
  ledger: {
    entries: [
      { name: 'weights (file)', bytes: 900, source: 'GGUF header' },
      { name: 'process RSS', bytes: null, source: '/proc', reason: 'no sample from the worker' },
    ],
    reconciliation: [{ name: 'RSS − mapping resident', bytes: null, formula: 'RSS minus resident weight pages' }],
  },
  residency: {
    policy: 'stream',
    layers: [
      { index: 0, bytes: 400, resident_bytes: 400, tier: 'pinned', file_backed_bytes: 400 },
      { index: 1, bytes: 500, resident_bytes: 0, tier: 'streamed', file_backed_bytes: 500 },
    ],
    persistent_bytes: 0,
    anonymous_bytes: 0,
    counters: { prefetches: 12, directIo: true, lockError: null, stalls: 1, late: 0, readErrors: 0 },
    bytes_read_per_token: 480,
    bytes_read_per_token_reason: null,
    floor_bytes_per_token: 400,
    floor_bytes_per_token_note: 'weights per token 900 − (cap 500 − non-weight charged 0) = 400',
    limit_hits_decode: 3,
    limit_hits_decode_note: 'limit hits from token 1 to token 2 (2 samples)',
    pinned_resident_min: 0.995,
    pinned_resident_min_note: 'minimum over 2 decode samples',
    non_weight_bytes: 0,
    non_weight_bytes_note: 'peak over 2 decode samples',
    read_rate_bytes_per_s: 4800,
    read_rate_bytes_per_s_note: 'bytes read between token 1 and 2 / 0.10 s',
    schedule: {
      capBytes: 500,
      nonWeightMeasuredBytes: 40,
      nonWeightSource: 'cgroup charge − model pages',
      nonWeightBudgetBytes: 60,
      persistentResidentBytes: 0,
      residentLayerBytes: 400,
      streamedBytes: 500,
      streamedTensors: 3,
      units: 3,
      windowBytes: 200,
      readaheadBytes: 0,
      headroomBytes: 50,
      pinnedBytes: 400,
      pinnedLockedBytes: 400,
      lockError: null,
    },
    actions: [{ kind: 'prefetch', count: 3, requested_bytes: 1500, accepted_bytes: 1400, observed_bytes: null }],
    timeline: [
      { tMs: 10, token: 1, phase: 'decode', layerResident: [400, 200], persistentResident: 0, rssBytes: 600, cgroupBytes: 450, cgroupLimitBytes: 500, limitHits: 7, pinnedResident: 398, pinnedBytes: 400, readBytes: 100, majorFaults: 1, decodeTokS: 9, events: [{ tMs: 10, kind: 'drop', layer: 1, bytes: 500 }] },
    ],
    events: [{ tMs: 11, kind: 'prefetch', layer: 1, bytes: 500, durMs: 3 }],
  },
  cgroup: null,
  cold_start: null,
  graph_trace: {
    complete: false,
    events: 4096,
    dropped: 12,
    reason: 'event bound reached',
    edges: 9000,
    profile_note: 'refused: trace incomplete',
    groups: [
      { group: 0, layer: -1, nodes: 1, ops: ['GET_ROWS'], weights: ['token_embd.weight'] },
      { group: 1, layer: 0, nodes: 30, ops: ['RMS_NORM', 'MUL_MAT'], weights: ['blk.0.attn_q.weight', 'token_embd.weight'] },
    ],
    tensors: [
      { name: 'token_embd.weight', layer: -1, firstUse: 0, lastUse: 40, uses: 2 },
      { name: 'blk.0.attn_q.weight', layer: 0, firstUse: 3, lastUse: 3, uses: 1 },
    ],
    nodes: [],
  },
};

describe('RunReport (schema v1) in the UI', () => {
  it('reads identity, outcome, generation, residency and ledger', () => {
    const r = normalizeReport(JSON.parse(JSON.stringify(report)));
    expect(r.modelName).toBe('/m/tiny.gguf'); // name is null: the path stands in
    expect(r.status).toBe('ok');
    expect(r.policy).toBe('stream');
    expect(r.generation).toMatchObject({ tokenIds: [7, 8], ttftMs: 12, decodeTokS: 9, promptTokens: 3 });
    expect(r.readBytesPerToken).toBe(480);
    expect(r.figures.floor).toEqual({ value: 400, note: 'weights per token 900 − (cap 500 − non-weight charged 0) = 400' });
    expect(r.figures.limitHits.value).toBe(3);
    expect(r.figures.pinnedResidentMin.value).toBe(0.995);
    expect(r.figures.readRate.value).toBe(4800);
    expect(r.figures.nonWeight.value).toBe(0); // a measured 0 stays 0
    expect(r.schedule).toMatchObject({ windowBytes: 200, streamedTensors: 3, pinnedLockedBytes: 400, nonWeightMeasuredBytes: 40, nonWeightBudgetBytes: 60, lockError: null });
    expect(r.counters).toEqual({ directIo: true, stalls: 1, late: 0, readErrors: 0 });
    expect(r.shape).toEqual({ ctx: 256, batch: 32, threads: 2, ramBytes: 500, enforceRam: true });
    expect(r.timeline[0]).toMatchObject({ limitHits: 7, pinnedResident: 398, pinnedBytes: 400 });
    expect(r.ledger[0]).toEqual({ category: 'weights (file)', bytes: 900, provenance: 'GGUF header', reason: null });
    expect(r.ledger[1]!.reason).toBe('no sample from the worker');
    expect(r.reconciliation[0]).toEqual({ name: 'RSS − mapping resident', bytes: null, detail: 'RSS minus resident weight pages' });
    expect(r.cgroup).toBeNull();
    expect(r.actions).toEqual([{ kind: 'prefetch', count: 3, requestedBytes: 1500, acceptedBytes: 1400, observedBytes: null }]);
    expect(r.trace).toMatchObject({ complete: false, eventCount: 4096, droppedEvents: 12, reason: 'event bound reached', edges: 9000, profileNote: 'refused: trace incomplete' });
    const [g0, g1] = r.trace!.groups;
    expect(g0).toMatchObject({ order: 0, layer: null, nodes: 1, ops: ['GET_ROWS'] });
    expect(g1!.layer).toBe(0);
    expect(g0!.tensors[0]).toEqual({ name: 'token_embd.weight', bytes: null, lastUseGroup: 1, lastUseNode: 40 });
    expect(g1!.tensors.map((t) => [t.name, t.lastUseGroup, t.lastUseNode])).toEqual([
      ['blk.0.attn_q.weight', 1, 3],
      ['token_embd.weight', 1, 40],
    ]);
  });

  it('gives the dashboard its layers, samples and events', () => {
    const d = reportDashboard(normalizeReport(report));
    expect(d.layers.map((l) => l.tier)).toEqual(['pinned', 'streamed']);
    expect(d.samples[0]!.layerResident).toEqual([400, 200]);
    expect(d.events.map((e) => e.kind)).toEqual(['drop', 'prefetch']);
    expect(d.cgroupPoints).toEqual([{ tS: 0.01, usage: 450, limit: 500 }]);
    expect(d.figures.floor.value).toBe(400);
    expect(d.schedule?.windowBytes).toBe(200);
  });
});
