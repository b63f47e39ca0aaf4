// The HTTP API's view of the app's worker: the model the app has loaded, served under its file
// name, and generations that go through the same gate as the app's own chat, so API clients
// and the chat window share the worker's sequences without ever asking it for more.
import type { ApiBackend, BackendRun, PullProgress, PulledFile, ServedModel } from '../api/backend.js';
import { pullModel } from './api-pull.js';
import { copyModelFile, deleteModelFile } from './api-models-folder.js';
import { ApiError, unavailable } from '../api/errors.js';
import { QueueAbortedError, type GenerationGate } from '../api/gate.js';
import { modelIdOf, namesFile } from '../api/model-id.js';
import { Throughput } from '../api/throughput.js';
import { apiErrorOfWorker } from '../api/worker-errors.js';
import type { EngineState } from '../shared/api.js';
import type { ChatPromptParams, ChatPromptResult, EmbedInput, EmbedPooling, EmbedResult, GenerateParams, LoadParams, ModelInfo, TokenEvent, TokenizeResult } from '../shared/worker-protocol.js';
import type { RunSettings } from '../shared/settings/run-settings.js';
import type { HostLike } from './host-like.js';

const fileTypeOf = (meta: Record<string, string>): number | null => {
  const v = Number(meta['general.file_type']);
  return meta['general.file_type'] !== undefined && Number.isInteger(v) ? v : null;
};

const hundredths = (x: number): number => Math.round(x * 100) / 100;

/** What the backend reads of the app service. */
export interface WorkerAccess {
  host(): HostLike | null;
  loaded(): { path: string; params: LoadParams; info: ModelInfo; loadedAt: number } | null;
  status(): EngineState['status'];
  /** After a failure on `h`: did its worker end, and was that a crash (not a close by unload or load)? */
  ended(h: HostLike): Promise<{ ended: boolean; crashed: boolean }>;
  /** The worker's cumulative storage reads (latest residency sample), or null. */
  readBytes(): number | null;
  /** The models the app lists (pinned, recent): what a request may name besides the loaded one. */
  models?(): Promise<{ path: string }[]>;
  /** The settings the loaded model was loaded with. */
  settings?(): RunSettings | null;
  /** The app's own unload and load (the same plan, the same refusals, the same events). */
  unload?(): Promise<void>;
  load?(path: string, settings: RunSettings): Promise<unknown>;
}

export class AppApiBackend implements ApiBackend {
  /** API generations running now (the app's own chat is not counted). */
  running = 0;

  constructor(
    private readonly access: WorkerAccess,
    private readonly gate: () => GenerationGate,
    private readonly throughput: Throughput,
  ) {}

  model(): ServedModel | ApiError {
    const status = this.access.status();
    const l = this.access.loaded();
    if (status === 'crashed') return unavailable('the inference worker is down (it crashed or was killed): restart it in the app, or restart ramforge serve', 'worker_down');
    if (status === 'loading') return unavailable('a model is loading: retry in a moment', 'model_loading');
    if (!l || !this.access.host()) return unavailable('no model is loaded: load one in the app, or start ramforge serve with --model', 'model_not_loaded');
    const file = l.path.split(/[\\/]/).pop() ?? l.path;
    const id = modelIdOf(l.path);
    const aliases = [...new Set([file, l.info.name])].filter((a) => a !== id && a !== '');
    const sequences = Math.max(1, l.params.parallel ?? 1);
    return {
      id,
      aliases,
      created: Math.floor(l.loadedAt / 1000),
      arch: l.info.arch,
      hasChatTemplate: l.info.chatTemplate !== null && l.info.chatTemplate !== '',
      ctxPerSequence: Math.max(1, Math.floor(l.info.nCtx / sequences)),
      sequences,
      policy: l.params.policy ?? null,
      facts: {
        sizeBytes: l.info.sizeBytes,
        parameterCount: l.info.nParams,
        fileType: fileTypeOf(l.info.metadata),
        chatTemplate: l.info.chatTemplate,
        contextLength: l.info.nCtxTrain,
        layers: l.info.nLayers,
      },
    };
  }

  /** What keep_alive 0 unloaded, to load again for the next request. */
  private unloaded: { path: string; settings: RunSettings } | null = null;
  private reloading: Promise<void> | null = null;

  async unload(): Promise<void> {
    const l = this.access.loaded();
    const settings = this.access.settings?.() ?? null;
    if (!l || !settings || !this.access.unload) return;
    // Requests already running on the model end first, as Ollama lets them.
    while (this.running > 0) await new Promise((r) => setTimeout(r, 20));
    if (this.access.loaded() !== l) return;
    this.unloaded = { path: l.path, settings };
    try {
      await this.access.unload();
    } catch (e) {
      this.unloaded = null;
      throw unavailable(`the model could not be unloaded: ${(e as Error).message}`, 'model_busy');
    }
  }

  async loadAgain(requested: string | null): Promise<boolean> {
    if (this.reloading) return this.reloading.then(() => true);
    const u = this.unloaded;
    if (!u || !this.access.load || !(this.model() instanceof ApiError)) return false;
    if (requested !== null && !namesFile(requested, u.path) && (await this.modelOnDisk(requested)) !== null) return false;
    // Another request may have begun the reload while this one looked.
    const begun = this.reloading as Promise<void> | null;
    if (begun) return begun.then(() => true);
    if (this.unloaded !== u) return false;
    this.unloaded = null;
    const load = this.access.load;
    this.reloading = (async () => {
      try {
        await load(u.path, u.settings);
      } catch (e) {
        throw unavailable(`the model could not be loaded again: ${(e as Error).message}`, 'model_not_loaded');
      } finally {
        this.reloading = null;
      }
    })();
    await this.reloading;
    return true;
  }

  pull(url: string, onProgress: (p: PullProgress) => void): Promise<PulledFile[]> {
    return pullModel(url, onProgress);
  }

  deleteModel(name: string): Promise<void> {
    return deleteModelFile(name, this.access.loaded()?.path ?? null);
  }

  copyModel(source: string, destination: string): Promise<void> {
    return copyModelFile(source, destination, this.access.loaded()?.path ?? null);
  }

  async modelOnDisk(name: string): Promise<string | null> {
    const loaded = this.access.loaded()?.path;
    const known = this.access.models ? await this.access.models().catch(() => []) : [];
    return known.find((m) => m.path !== loaded && namesFile(name, m.path))?.path ?? null;
  }

  async tokenize(text: string, addSpecial: boolean, parseSpecial: boolean): Promise<TokenizeResult> {
    const h = this.access.host();
    if (!h?.tokenize) throw unavailable('this worker does not tokenize', 'tokenize_unavailable');
    return h.tokenize(text, addSpecial, parseSpecial).catch((e: unknown) => {
      throw apiErrorOfWorker((e as { code?: string }).code, (e as Error).message, false, 'input');
    });
  }

  slots(): boolean[] {
    return this.gate().slots();
  }

  async detokenize(tokens: number[], special = false): Promise<string> {
    const h = this.access.host();
    if (!h?.detokenize) throw unavailable('this worker does not detokenize', 'tokenize_unavailable');
    return h.detokenize(tokens, special).catch((e: unknown) => {
      throw apiErrorOfWorker((e as { code?: string }).code, (e as Error).message, false, 'input');
    });
  }

  async applyTemplate(params: ChatPromptParams): Promise<ChatPromptResult> {
    const h = this.access.host();
    if (!h?.applyTemplate) throw unavailable('this worker does not render chat templates', 'apply_template_unavailable');
    return h.applyTemplate(params).catch((e: unknown) => {
      throw apiErrorOfWorker((e as { code?: string }).code, (e as Error).message, false, 'messages');
    });
  }

  async embed(texts: EmbedInput[], signal: AbortSignal, truncate = false, pooling: EmbedPooling = 'mean'): Promise<EmbedResult> {
    return this.onSequence(signal, 'input', async (h) => {
      if (!h.embed) throw unavailable('this worker does not compute embeddings', 'embeddings_unavailable');
      return h.embed(texts, truncate, pooling);
    });
  }

  async generate(params: GenerateParams, onToken: (t: TokenEvent) => void, signal: AbortSignal): Promise<BackendRun> {
    return this.onSequence(signal, params.messages ? 'messages' : 'prompt', async (h, m) => {
      const mark = this.throughput.mark();
      const read0 = this.access.readBytes();
      const result = await h.generate(
        params,
        (t) => {
          this.throughput.token();
          onToken(t);
        },
        signal,
      );
      const now = this.throughput.mark();
      const read1 = this.access.readBytes();
      const tokens = now.tokens - mark.tokens;
      const perPass = Throughput.tokensPerPass(mark, now);
      return {
        result,
        extras: {
          policy: m.policy,
          sequences: m.sequences,
          bytes_read_per_token: read0 !== null && read1 !== null && tokens > 0 ? Math.round((read1 - read0) / tokens) : null,
          tokens_per_pass: perPass === null ? null : hundredths(perPass),
          prompt_ms: hundredths(result.timings.promptMs),
          ttft_ms: hundredths(result.timings.ttftMs),
          decode_tok_s: hundredths(result.timings.decodeTokS),
        },
      };
    });
  }

  /**
   * `work` on one of the worker's sequences, once one is free: refused when no model serves,
   * or when the app loaded another model while the request waited; a worker's failure becomes
   * the API error it means (a worker that died is WORKER_EXITED), `param` naming the field.
   */
  private async onSequence<T>(signal: AbortSignal, param: 'messages' | 'prompt' | 'input', work: (h: HostLike, m: ServedModel) => Promise<T>): Promise<T> {
    const asked = this.access.loaded();
    const first = this.model();
    if (first instanceof ApiError) throw first;
    const leave = await this.gate().enter({ signal, limited: true });
    this.running++;
    const h = this.access.host();
    try {
      const m = this.model();
      if (m instanceof ApiError) throw m;
      if (this.access.loaded() !== asked || !h) throw unavailable('the model changed while the request waited: send it again', 'model_changed');
      return await work(h, m);
    } catch (e) {
      if (e instanceof ApiError || e instanceof QueueAbortedError || !h) throw e;
      const { ended, crashed } = await this.access.ended(h);
      const code = (e as { code?: unknown }).code;
      const message = (e as Error)?.message ?? String(e);
      if (ended) throw apiErrorOfWorker('WORKER_EXITED', message, crashed, param);
      throw apiErrorOfWorker(typeof code === 'string' ? code : undefined, message, false, param);
    } finally {
      this.running--;
      leave();
    }
  }
}
