// A backend for the HTTP server's tests: a "model" that streams numbered words on a timer
// through the real gate, honours its signal like the worker (ends with stopReason cancelled),
// and can be told to fail or crash after some tokens.
import type { EmbedResult, GenerateParams, GenerationResult, TokenEvent } from '../shared/worker-protocol.js';
import type { ApiBackend, BackendRun, ServedModel } from './backend.js';
import { ApiError, serverError } from './errors.js';
import { GenerationGate } from './gate.js';

export const FAKE_MODEL: ServedModel = {
  id: 'fake',
  aliases: ['fake.gguf'],
  created: 1700000000,
  arch: 'llama',
  hasChatTemplate: true,
  ctxPerSequence: 64,
  sequences: 2,
  policy: 'stream',
};

export class FakeBackend implements ApiBackend {
  served: ServedModel | ApiError = FAKE_MODEL;
  gate = new GenerationGate(2, 2);
  /** Words the model says, in turn (the n-th token is words[n % words.length]). */
  words = ['w0 ', 'w1 ', 'w2 ', 'w3 ', 'w4 ', 'w5 ', 'w6 ', 'w7 '];
  tokenMs = 2;
  /** Fail with this error after that many tokens (0 = before the first). */
  failAfter: { tokens: number; error: ApiError } | null = null;
  calls: GenerateParams[] = [];
  /** Signals of generations that ended, and whether each had been aborted. */
  aborted: boolean[] = [];
  running = 0;

  /** Models "on this machine" besides the served one, by name: their paths. */
  onDisk: Record<string, string> = {};

  async modelOnDisk(name: string): Promise<string | null> {
    return this.onDisk[name] ?? null;
  }

  model(): ServedModel | ApiError {
    return this.served;
  }

  /** A vector per text from its characters (deterministic; texts that differ differ). */
  embedded: string[][] = [];
  async embed(texts: string[], signal: AbortSignal): Promise<EmbedResult> {
    if (this.served instanceof ApiError) throw this.served;
    const leave = await this.gate.enter({ signal, limited: true });
    try {
      if (this.failAfter) throw this.failAfter.error;
      this.embedded.push(texts);
      return { vectors: texts.map((t) => [t.length, t.charCodeAt(0), 2, 0]), tokens: texts.reduce((n, t) => n + t.length, 0), decodes: texts.length };
    } finally {
      leave();
    }
  }

  async generate(params: GenerateParams, onToken: (t: TokenEvent) => void, signal: AbortSignal): Promise<BackendRun> {
    if (this.served instanceof ApiError) throw this.served;
    const leave = await this.gate.enter({ signal, limited: true });
    this.calls.push(params);
    this.running++;
    try {
      const result = await this.run(params, onToken, signal);
      return { result, extras: { policy: 'stream', sequences: 2, bytes_read_per_token: 4096, tokens_per_pass: 1.5, prompt_ms: 1, ttft_ms: 2, decode_tok_s: 100 } };
    } finally {
      this.running--;
      this.aborted.push(signal.aborted);
      leave();
    }
  }

  private run(params: GenerateParams, onToken: (t: TokenEvent) => void, signal: AbortSignal): Promise<GenerationResult> {
    const tokens: number[] = [];
    return new Promise((resolve, reject) => {
      const step = (): void => {
        if (this.failAfter && tokens.length >= this.failAfter.tokens) return reject(this.failAfter.error);
        const stopReason = signal.aborted ? 'cancelled' : tokens.length >= params.maxTokens ? 'max_tokens' : null;
        if (stopReason) {
          const text = tokens.map((t) => this.words[t % this.words.length]).join('');
          return resolve({
            promptTokens: [1, 2, 3],
            tokens,
            text,
            stopReason,
            reusedTokens: 0,
            timings: { promptMs: 1, ttftMs: 2, decodeMs: 3, promptTokS: 1, decodeTokS: 100, perTokenMs: [] },
          });
        }
        const i = tokens.length;
        tokens.push(i);
        onToken({ index: i, tokenId: i, text: this.words[i % this.words.length] as string, tMs: i });
        setTimeout(step, this.tokenMs);
      };
      setTimeout(step, this.tokenMs);
    });
  }
}

export const crash = (): ApiError => serverError('the inference worker ended during the request: killed', 'worker_crashed');
