// GET /metrics (opt-in: `serve --api --metrics`, as llama-server's `--metrics`): Prometheus'
// text format under llama-server's names, so dashboards made for it read ours. Counted from
// every generation the API runs (prompt and generated tokens, their time); requests running and
// waiting come from the gate. Metrics llama-server computes from its own decode loop
// (n_decode_total, busy slots per decode, KV cache usage) have no counterpart here and are not
// made up. Pure: the figures come in.
import type { ApiBackend } from './backend.js';

export interface MetricsLoad {
  /** Requests being decoded now. */
  active: number;
  /** Requests waiting for a sequence. */
  queued: number;
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
      return run;
    };
    // Every other method is the backend's own, called on the backend itself.
    return new Proxy(backend, {
      get: (target, key, receiver) => {
        if (key === 'generate') return generate;
        const v: unknown = Reflect.get(target, key, receiver);
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
  }

  text(): string {
    const l = this.load();
    const perSecond = (n: number, ms: number) => (ms > 0 ? (n * 1000) / ms : 0);
    const metrics: Metric[] = [
      { name: 'prompt_tokens_total', type: 'counter', help: 'Number of prompt tokens processed.', value: this.promptTokens },
      { name: 'prompt_tokens_cached_total', type: 'counter', help: 'Number of prompt tokens reused from the cache (not decoded).', value: this.cachedTokens },
      { name: 'prompt_seconds_total', type: 'counter', help: 'Prompt process time', value: this.promptMs / 1000 },
      { name: 'tokens_predicted_total', type: 'counter', help: 'Number of generation tokens processed.', value: this.predictedTokens },
      { name: 'tokens_predicted_seconds_total', type: 'counter', help: 'Predict process time', value: this.predictedMs / 1000 },
      { name: 'prompt_tokens_seconds', type: 'gauge', help: 'Average prompt throughput in tokens/s.', value: perSecond(this.promptTokens, this.promptMs) },
      { name: 'predicted_tokens_seconds', type: 'gauge', help: 'Average generation throughput in tokens/s.', value: perSecond(this.predictedTokens, this.predictedMs) },
      { name: 'requests_processing', type: 'gauge', help: 'Number of requests processing.', value: l.active },
      { name: 'requests_deferred', type: 'gauge', help: 'Number of requests deferred.', value: l.queued },
    ];
    return metrics.map((m) => `# HELP llamacpp:${m.name} ${m.help}\n# TYPE llamacpp:${m.name} ${m.type}\nllamacpp:${m.name} ${Number(m.value.toFixed(6))}\n`).join('');
  }
}
