// GET /metrics (opt-in: `serve --api --metrics`, as llama-server's `--metrics`): Prometheus'
// text format under llama-server's names, so dashboards made for it read ours. Counted from
// every generation and embedding the API runs (prompt and generated tokens, their time, the
// longest sequence, a draft model's proposals); requests running and waiting come from the gate.
// The decode counters are counted where llama_decode runs: a generation decoding alone reports
// its calls (the prompt's micro-batches, one per token), an embedding one per text, and the batch
// server each step with the sequences it served (llama-server's busy slots), app turns included as
// llama-server counts every decode of its loop. KV cache usage has no counterpart here and is not
// made up. Pure: the figures come in.
import type { ApiBackend } from './backend.js';

export interface MetricsLoad {
  /** Requests being decoded now. */
  active: number;
  /** Requests waiting for a sequence. */
  queued: number;
  /** The batch server's steps since the start (each one llama_decode), and the sequences they served in all; absent: none. */
  passes?: number;
  busy?: number;
}

interface Metric {
  name: string;
  type: 'counter' | 'gauge';
  help: string;
  value: number;
}

/** Counters of what the API has generated since it started, and the text /metrics answers. */
export class ServerMetrics {
  private promptTokens = 0;
  private cachedTokens = 0;
  private promptMs = 0;
  private predictedTokens = 0;
  private predictedMs = 0;
  /** llama_decode calls outside the batch server (one sequence each). */
  private decodes = 0;
  private tokensMax = 0;
  private drafted = 0;
  private accepted = 0;
  private drafts = 0;

  constructor(private readonly load: () => MetricsLoad) {}

  /** The backend with every finished generation counted. */
  counting(backend: ApiBackend): ApiBackend {
    const generate: ApiBackend['generate'] = async (params, onToken, signal) => {
      const run = await backend.generate(params, onToken, signal);
      const r = run.result;
      this.promptTokens += r.promptTokens.length - r.reusedTokens;
      this.cachedTokens += r.reusedTokens;
      this.promptMs += r.timings.promptMs;
      this.predictedTokens += r.tokens.length;
      this.predictedMs += r.timings.decodeMs;
      this.decodes += r.decodes ?? 0;
      this.tokensMax = Math.max(this.tokensMax, r.promptTokens.length + r.tokens.length);
      this.drafted += r.draft?.drafted ?? 0;
      this.accepted += r.draft?.accepted ?? 0;
      this.drafts += r.draft?.passes ?? 0;
      return run;
    };
    // An embedding never samples a token, but its prompt is decoded (llama-server counts it).
    const embed: ApiBackend['embed'] = async (texts, signal, truncate, pooling) => {
      const e = await backend.embed(texts, signal, truncate, pooling);
      this.promptTokens += e.tokens;
      this.decodes += e.decodes;
      return e;
    };
    // Every other method is the backend's own, called on the backend itself.
    return new Proxy(backend, {
      get: (target, key, receiver) => {
        if (key === 'generate') return generate;
        if (key === 'embed') return embed;
        const v: unknown = Reflect.get(target, key, receiver);
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
  }

  text(): string {
    const l = this.load();
    const perSecond = (n: number, ms: number) => (ms > 0 ? (n * 1000) / ms : 0);
    const decodes = this.decodes + (l.passes ?? 0);
    const busy = this.decodes + (l.busy ?? 0);
    const metrics: Metric[] = [
      { name: 'prompt_tokens_total', type: 'counter', help: 'Number of prompt tokens processed.', value: this.promptTokens },
      { name: 'prompt_tokens_cached_total', type: 'counter', help: 'Number of prompt tokens reused from the cache (not decoded).', value: this.cachedTokens },
      { name: 'prompt_seconds_total', type: 'counter', help: 'Prompt process time', value: this.promptMs / 1000 },
      { name: 'tokens_predicted_total', type: 'counter', help: 'Number of generation tokens processed.', value: this.predictedTokens },
      { name: 'tokens_predicted_seconds_total', type: 'counter', help: 'Predict process time', value: this.predictedMs / 1000 },
      { name: 'n_decode_total', type: 'counter', help: 'Total number of llama_decode() calls, excluding speculative decoding.', value: decodes },
      { name: 'n_tokens_max', type: 'counter', help: 'Largest observed sequence length (prompt + generation).', value: this.tokensMax },
      { name: 'spec_decode_num_draft_tokens_total', type: 'counter', help: 'Speculative: Total draft tokens generated.', value: this.drafted },
      { name: 'spec_decode_num_accepted_tokens_total', type: 'counter', help: 'Speculative: Total draft tokens accepted by the target model.', value: this.accepted },
      { name: 'spec_decode_num_drafts_total', type: 'counter', help: 'Speculative: Total speculative decoding verification steps.', value: this.drafts },
      { name: 'prompt_tokens_seconds', type: 'gauge', help: 'Average prompt throughput in tokens/s.', value: perSecond(this.promptTokens, this.promptMs) },
      { name: 'predicted_tokens_seconds', type: 'gauge', help: 'Average generation throughput in tokens/s.', value: perSecond(this.predictedTokens, this.predictedMs) },
      { name: 'requests_processing', type: 'gauge', help: 'Number of requests processing.', value: l.active },
      { name: 'requests_deferred', type: 'gauge', help: 'Number of requests deferred.', value: l.queued },
      { name: 'n_busy_slots_per_decode', type: 'gauge', help: 'Average number of busy slots per llama_decode() call.', value: busy / Math.max(decodes, 1) },
    ];
    return metrics.map((m) => `# HELP llamacpp:${m.name} ${m.help}\n# TYPE llamacpp:${m.name} ${m.type}\nllamacpp:${m.name} ${Number(m.value.toFixed(6))}\n`).join('');
  }
}
