import { describe, expect, it } from 'vitest';
import { looksLikeReport, normalizeReport } from './report-model.js';

const full = {
  schema_version: 1,
  model: { name: 'tiny.gguf' },
  outcome: { status: 'oom', exit_code: 137, message: 'killed by the cap' },
  generation: { token_ids: [5, 6, 7], ttft_ms: 120, decode_tok_s: 8.5, stop_reason: 'max_tokens', prompt_tokens: [1, 2] },
  residency: {
    policy: 'stream',
    layers: [
      { index: 0, bytes: 100, resident_bytes: 100, tier: 'pinned' },
      { index: 1, bytes: 300, resident_bytes: 0, tier: 'streamed' },
    ],
    timeline: [{ t_ms: 5, token: 1, phase: 'decode', layer_resident: [100, null], read_bytes: 50, events: [{ t_ms: 5, kind: 'drop', layer: 1, bytes: 300 }, { kind: 'bogus' }] }],
  },
  ledger: {
    entries: [
      { category: 'KV cache', bytes: 64, provenance: 'llama.cpp' },
      { category: 'mapping PSS', bytes: null, reason: 'smaps not readable' },
    ],
    reconciliation: [{ name: 'RSS − mapping resident', bytes: -12, formula: 'VmRSS − Σ mincore' }],
  },
  cgroup: { version: 2, limit_bytes: 1000, peak_bytes: 990, max_events: 4, oom_kills: 1 },
  graph_trace: { truncated: true, groups: [] },
};

describe('normalizeReport', () => {
  it('reads every section of a schema-v1 report', () => {
    const r = normalizeReport(full);
    expect(r.schemaVersion).toBe(1);
    expect(r.status).toBe('oom');
    expect(r.exitCode).toBe(137);
    expect(r.modelName).toBe('tiny.gguf');
    expect(r.policy).toBe('stream');
    expect(r.generation?.tokenIds).toEqual([5, 6, 7]);
    expect(r.generation?.promptTokens).toBe(2);
    expect(r.layers.map((l) => [l.tier, l.residentBytes])).toEqual([
      ['pinned', 100],
      ['streamed', 0],
    ]);
    expect(r.timeline[0]!.layerResident).toEqual([100, null]);
    expect(r.timeline[0]!.events).toHaveLength(1);
    expect(r.ledger[1]).toEqual({ category: 'mapping PSS', bytes: null, provenance: null, reason: 'smaps not readable' });
    expect(r.reconciliation[0]!.bytes).toBe(-12);
    expect(r.cgroup).toEqual({ version: 2, limitBytes: 1000, peakBytes: 990, limitHits: 4, oomKills: 1 });
    expect(r.trace?.complete).toBe(false);
    // No floor stated, and the streamed layers' bytes are not one (a layer may stream only part).
    expect(r.figures.floor.value).toBeNull();
    expect(r.peakBytes).toBe(990);
  });
  it('survives missing sections with explicit empties', () => {
    const r = normalizeReport({ schema_version: 1 });
    expect(r.generation).toBeNull();
    expect(r.layers).toEqual([]);
    expect(r.timeline).toEqual([]);
    expect(r.ledger).toEqual([]);
    expect(r.cgroup).toBeNull();
    expect(r.trace).toBeNull();
    expect(r.figures.floor.value).toBeNull();
    expect(r.figures.limitHits.value).toBeNull();
    expect(r.schedule).toBeNull();
    expect(r.shape.batch).toBeNull();
    expect(r.status).toBeNull();
  });
  it('reads a ledger given as a map of figures with provenance', () => {
    const r = normalizeReport({ ledger: { rss: { value: 10, provenance: '/proc' }, kv: 4, note: 'x', reconciliation: { 'cgroup − RSS': 3 } } });
    expect(r.ledger.map((l) => [l.category, l.bytes, l.provenance])).toEqual([
      ['rss', 10, '/proc'],
      ['kv', 4, null],
    ]);
    expect(r.reconciliation).toEqual([{ name: 'cgroup − RSS', bytes: 3, detail: null }]);
  });
  it('tells reports from other JSON', () => {
    expect(looksLikeReport(full)).toBe(true);
    expect(looksLikeReport({ hello: 1 })).toBe(false);
    expect(looksLikeReport([1])).toBe(false);
  });
});
