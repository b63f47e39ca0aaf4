// DEV ONLY (visual checks of the renderer without a backend; never imported by production code).
import type { ResidencyEvent, ResidencySample } from '../../src-main/shared/residency-types.js';
import type { StreamSchedule } from '../../src-main/shared/worker-protocol.js';

export const N_LAYERS = 32;
export const LAYER_BYTES = 412 * 1024 * 1024;
export const PINNED = 20;

export function mockInspect(): unknown {
  const types = ['q4_K', 'q4_K', 'q6_K', 'q4_K', 'f32', 'f32', 'q4_K', 'q4_K', 'q4_K'];
  const names = ['attn_q', 'attn_k', 'attn_v', 'attn_output', 'attn_norm', 'ffn_norm', 'ffn_gate', 'ffn_up', 'ffn_down'];
  return {
    name: 'Synthetic Llama 13B Q4_K_M',
    architecture: 'llama',
    parameter_count: 13_015_864_320,
    file_bytes: 13_831_320_576,
    tensor_bytes: 13_828_000_000,
    context_length: 4096,
    tokenizer: { model: 'llama', vocab_size: 32000 },
    chat_template: "{% for message in messages %}{{ '<|' + message['role'] + '|>\\n' + message['content'] + '</s>\\n' }}{% endfor %}{% if add_generation_prompt %}{{ '<|assistant|>\\n' }}{% endif %}",
    quantization: [
      { type: 'q4_K', count: 193, bytes: 11_200_000_000 },
      { type: 'q6_K', count: 33, bytes: 2_400_000_000 },
      { type: 'f32', count: 65, bytes: 1_300_000 },
    ],
    layers: Array.from({ length: N_LAYERS }, (_, i) => ({
      index: i,
      bytes: LAYER_BYTES,
      tensors: names.map((n, k) => ({ name: `blk.${i}.${n}.weight`, type: types[k], bytes: Math.round(LAYER_BYTES / names.length), dims: [5120, k < 4 ? 5120 : 13824] })),
    })),
    persistent_bytes: 410_000_000,
    metadata: {
      'general.architecture': 'llama',
      'general.name': 'Synthetic Llama 13B Q4_K_M',
      'llama.block_count': 32,
      'llama.context_length': 4096,
      'llama.embedding_length': 5120,
      'tokenizer.ggml.model': 'llama',
      'tokenizer.ggml.tokens': Array.from({ length: 32000 }, (_, i) => `tok${i}`),
      'tokenizer.ggml.scores': Array.from({ length: 32000 }, () => 0),
    },
  };
}

export function mockPlan(ramBytes: number | null): unknown {
  const pinned = ramBytes === null ? N_LAYERS : Math.max(2, Math.min(N_LAYERS, Math.floor((ramBytes - 1.2e9) / LAYER_BYTES)));
  const streamed = N_LAYERS - pinned;
  return {
    verdict: streamed ? 'runs out-of-core' : 'fits in RAM',
    verdict_text: streamed ? `${streamed} layers stream from storage each token` : 'every layer stays resident',
    // Streamed layers stream their largest tensors only; the rest of each layer stays locked.
    layers: Array.from({ length: N_LAYERS }, (_, i) => ({ index: i, bytes: LAYER_BYTES, tier: i < pinned ? 'pinned' : 'streamed', streamedBytes: i < pinned ? 0 : Math.round(LAYER_BYTES * 0.6) })),
    bytes_per_token: streamed * LAYER_BYTES * 0.6,
    quantities: { floorBytesPerToken: { value: streamed * LAYER_BYTES * 0.9, formula: 'mock' } },
    input: { ctx: 2048, ubatch: 64, threads: 2 },
    tok_s: streamed ? 2.1e9 / (streamed * LAYER_BYTES) : 7.8,
    kv_bytes: 3_355_443_200 / 4,
    compute_bytes: 180_000_000,
    resident_bytes: pinned * LAYER_BYTES + 1.2e9,
    formula: ['kv = 2 × n_kv_heads × head_dim × ctx × 2 B × layers', `bytes/token = ${streamed} streamed layers × ${LAYER_BYTES} B`],
  };
}

export function mockSamples(n: number, streamedFrom = PINNED): ResidencySample[] {
  const out: ResidencySample[] = [];
  let read = 0;
  for (let s = 0; s < n; s++) {
    const pos = (s * 3) % N_LAYERS;
    const token = Math.floor((s * 3) / N_LAYERS);
    const events: ResidencyEvent[] = [];
    const layerResident = Array.from({ length: N_LAYERS }, (_, i) => {
      if (i < streamedFrom) return LAYER_BYTES;
      const d = (i - pos + N_LAYERS) % N_LAYERS;
      return d < 4 ? Math.round(LAYER_BYTES * (d === 3 ? 0.4 : 1)) : i === pos - 1 ? Math.round(LAYER_BYTES * 0.2) : 0;
    });
    if (pos >= streamedFrom) {
      events.push({ tMs: s * 60, kind: 'prefetch', layer: (pos + 2) % N_LAYERS, bytes: LAYER_BYTES, durMs: 40 });
      events.push({ tMs: s * 60 + 10, kind: 'drop', layer: pos - 1, bytes: LAYER_BYTES });
      read += LAYER_BYTES * 3;
      if (s % 17 === 0) events.push({ tMs: s * 60 + 20, kind: 'late', layer: pos, bytes: LAYER_BYTES, durMs: 25 });
      if (s % 41 === 0) events.push({ tMs: s * 60 + 30, kind: 'stall', layer: pos, bytes: 0, durMs: 80 });
    }
    out.push({
      tMs: s * 60,
      token,
      phase: s < 5 ? 'prompt' : 'decode',
      layerResident,
      persistentResident: 410_000_000,
      rssBytes: 9.6e9 + Math.sin(s / 9) * 3e8,
      cgroupBytes: 10.4e9 + Math.sin(s / 7) * 4e8,
      cgroupLimitBytes: 11 * 1024 ** 3,
      limitHits: Math.floor(s / 40),
      pinnedResident: 6e9 * (1 - (s % 50 === 0 ? 0.004 : 0)),
      pinnedBytes: 6e9,
      readBytes: read,
      majorFaults: s * 120,
      decodeTokS: s < 5 ? null : 0.42 + Math.sin(s / 13) * 0.05,
      events,
    });
  }
  return out;
}

export function mockSchedule(): StreamSchedule {
  return { capBytes: 11 * 1024 ** 3, nonWeightMeasuredBytes: 1.05e9, nonWeightSource: 'cgroup charge − model pages', nonWeightBudgetBytes: 1.2e9, persistentResidentBytes: 4.1e8, residentLayerBytes: PINNED * LAYER_BYTES, streamedBytes: (N_LAYERS - PINNED) * LAYER_BYTES, streamedTensors: 108, units: 108, windowBytes: 128 * 1024 ** 2, readaheadBytes: 0, headroomBytes: 1.1e8, pinnedBytes: 6e9, pinnedLockedBytes: 6e9, lockError: null };
}

export function mockReport(policy: string, tokens: number[], tokS: number): unknown {
  const samples = mockSamples(160, policy === 'off' ? N_LAYERS : PINNED);
  return {
    schema_version: 1,
    tool: { name: 'ramforge', version: '0.1.0' },
    model: { name: 'Synthetic Llama 13B Q4_K_M', path: '/models/synthetic-13b.gguf' },
    config: { policy, ram_bytes: 11 * 1024 ** 3, enforce_ram: true, ctx: 2048, batch: 64, threads: 2 },
    outcome: { status: 'ok', exit_code: 0 },
    generation: { token_ids: tokens, ttft_ms: policy === 'off' ? 5200 : 2900, decode_tok_s: tokS, stop_reason: 'max_tokens', text: 'The quick brown fox jumps over the lazy dog, again and again.' },
    residency: {
      policy,
      layers: Array.from({ length: N_LAYERS }, (_, i) => ({ index: i, bytes: LAYER_BYTES, resident_bytes: i < PINNED ? LAYER_BYTES : 0, tier: i < PINNED ? 'pinned' : 'streamed' })),
      floor_bytes_per_token: (N_LAYERS - PINNED) * LAYER_BYTES * 0.9,
      floor_bytes_per_token_note: 'mock: weights per token − (cap − non-weight charged)',
      limit_hits_decode: policy === 'off' ? 162_837 : 30,
      limit_hits_decode_note: 'mock',
      pinned_resident_min: policy === 'off' ? null : 0.996,
      pinned_resident_min_note: policy === 'off' ? 'no locked weights (the stream schedule was not running)' : 'mock',
      non_weight_bytes: 1.1e9,
      non_weight_bytes_note: 'mock',
      read_rate_bytes_per_s: 1.3e9,
      read_rate_bytes_per_s_note: 'mock',
      counters: { directIo: true, stalls: 3, late: 12, readErrors: 0, lockError: null },
      schedule: policy === 'off' ? null : mockSchedule(),
      timeline: samples.map((s) => ({ t_ms: s.tMs, token: s.token, phase: s.phase, layer_resident: s.layerResident, rss_bytes: s.rssBytes, cgroup_bytes: s.cgroupBytes, cgroup_limit_bytes: s.cgroupLimitBytes, limit_hits: s.limitHits, pinned_resident: s.pinnedResident, pinned_bytes: s.pinnedBytes, read_bytes: s.readBytes, decode_tok_s: s.decodeTokS, events: s.events.map((e) => ({ t_ms: e.tMs, kind: e.kind, layer: e.layer, bytes: e.bytes, dur_ms: e.durMs })) })),
    },
    ledger: {
      entries: [
        { category: 'weights (file-mapped, resident)', bytes: 8.9e9, provenance: 'mincore over mapping' },
        { category: 'weights (anonymous, repacked)', bytes: 0, provenance: 'llama_model_params + inventory' },
        { category: 'KV cache', bytes: 838_860_800, provenance: 'llama.cpp llama_kv_cache' },
        { category: 'compute buffers', bytes: 180_355_072, provenance: 'ggml_backend_sched' },
        { category: 'process RSS', bytes: 9.91e9, provenance: '/proc/self/status VmRSS' },
        { category: 'mapping PSS', bytes: null, reason: 'smaps_rollup not readable in this sandbox' },
      ],
      reconciliation: [
        { name: 'RSS − mapping resident', bytes: 1.01e9, formula: 'VmRSS − Σ mincore' },
        { name: 'cgroup − RSS', bytes: -2.3e8, formula: 'memory.usage_in_bytes − VmRSS' },
      ],
    },
    cgroup: { version: 1, limit_bytes: 11 * 1024 ** 3, peak_bytes: 11.2e9, max_events: 3, oom_kills: 0 },
    graph_trace: {
      complete: false,
      reason: 'event bound 4096 reached; 812 events dropped',
      dropped: 812,
      node_count: 1190,
      groups: Array.from({ length: 12 }, (_, g) => ({
        order: g,
        layer: g === 0 ? null : g - 1,
        phase: 'decode',
        ops: g === 0 ? ['GET_ROWS'] : ['RMS_NORM', 'MUL_MAT', 'ROPE', 'SOFT_MAX', 'MUL_MAT', 'ADD'],
        nodes: g === 0 ? 1 : 38,
        tensors: g === 0 ? [{ name: 'token_embd.weight', bytes: 2.6e8, last_use_group: 0 }] : ['attn_q', 'attn_k', 'ffn_down'].map((n) => ({ name: `blk.${g - 1}.${n}.weight`, bytes: 4.6e7, last_use_group: g })),
      })),
    },
  };
}
