// The engine inside the inference worker: one model, one context, the residency runtime.
// Only this process loads the native addon.
import type {
  GenerateParams,
  GenerationResult,
  LoadParams,
  ModelInfo,
  TokenEvent,
} from '../shared/worker-protocol.js';
import { loadAddon, type NativeContext, type NativeModel } from '../native/addon.js';
import { resolveModelFiles } from '../node/gguf-file.js';
import { ResidencyRuntime } from './residency-runtime.js';
import { basename } from 'node:path';

export class EngineError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The native error's own code (BUSY, FREED, BAD_ARGUMENT, …) when it has one, else `fallback`. */
function codeOf(e: unknown, fallback: string): string {
  const c = (e as { code?: unknown })?.code;
  return typeof c === 'string' && /^[A-Z_]+$/.test(c) ? c : fallback;
}

export class Engine {
  private model: NativeModel | null = null;
  private ctx: NativeContext | null = null;
  private info: ModelInfo | null = null;
  residency: ResidencyRuntime | null = null;

  async load(params: LoadParams, onProgress: (f: number) => void): Promise<ModelInfo> {
    await this.unload();
    const files = await resolveModelFiles(params.modelPath);
    // Read by our llama.cpp patch (native/patches/0001-optional-mmap-prefault.patch).
    if (params.prefault === false) process.env.RAMFORGE_NO_PREFAULT = '1';
    else delete process.env.RAMFORGE_NO_PREFAULT;
    const addon = loadAddon();
    const t0 = performance.now();
    let model: NativeModel;
    try {
      model = await addon.loadModel([files[0] as string], { mmap: params.mmap ?? true, repack: params.repack ?? true, gpuLayers: params.gpuLayers ?? 0 }, onProgress);
    } catch (e) {
      throw new EngineError(codeOf(e, 'LOAD_FAILED'), (e as Error).message);
    }
    // Releasing pages by hand needs the engine, which plain `off` does not install: observe.
    const manual = (params.releaseLayers?.length ?? 0) > 0 || params.releaseMappingPages === true;
    const policy = manual && (params.policy ?? 'off') === 'off' ? 'observe' : (params.policy ?? 'off');
    params = { ...params, policy };
    let ctx: NativeContext;
    try {
      ctx = model.createContext({
        nCtx: params.ctx ?? 4096,
        nThreads: params.threads ?? 0,
        nBatch: params.batch ?? 512,
        observeLayers: policy !== 'off' || params.graphTrace !== undefined,
        layerCallback: params.graphTrace !== undefined || policy === 'reuse-aware' || ResidencyRuntime.streams(params),
        // The stream schedule plans against what is charged at load: charge the buffers now.
        precharge: policy === 'stream' && params.ramBytes !== undefined,
      });
    } catch (e) {
      model.free();
      throw new EngineError(codeOf(e, 'CONTEXT_FAILED'), (e as Error).message);
    }
    const ni = model.info();
    this.model = model;
    this.ctx = ctx;
    this.info = {
      path: files[0] as string,
      name: ni.metadata['general.name'] || basename(files[0] as string),
      arch: ni.metadata['general.architecture'] ?? 'unknown',
      description: ni.description,
      nParams: ni.nParams,
      sizeBytes: ni.sizeBytes,
      nLayers: ni.nLayers,
      nCtxTrain: ni.nCtxTrain,
      nVocab: ni.nVocab,
      nCtx: ctx.info().nCtx,
      chatTemplate: ni.chatTemplate,
      metadata: ni.metadata,
      loadMs: performance.now() - t0,
      schedule: null,
    };
    // Every policy is observed (mincore, /proc counters); only policies other than `off`
    // install the engine that acts on pages.
    this.residency = new ResidencyRuntime(model, ctx, files, ni.nLayers, params);
    this.residency.configure();
    this.info.schedule = this.residency.schedule;
    if (params.graphTrace || policy === 'reuse-aware') this.residency.traceAndProfile(ni.bos >= 0 ? ni.bos : 0, params.graphTrace?.maxEvents ?? 100_000);
    const release = new Set(params.releaseLayers ?? []);
    // Without a plan no layer is pinned: every layer's mapping pages go.
    if (params.releaseMappingPages) this.residency.tiers.forEach((t, i) => (t === 'streamed' || !params.tiers) && release.add(i));
    try {
      this.residency.releaseNow([...release].sort((a, b) => a - b));
    } catch (e) {
      await this.unload();
      throw new EngineError('BAD_ARGUMENT', (e as Error).message);
    }
    return this.info;
  }

  modelInfo(): ModelInfo | null {
    return this.info;
  }

  private need(): { model: NativeModel; ctx: NativeContext } {
    if (!this.model || !this.ctx) throw new EngineError('NO_MODEL', 'no model is loaded');
    return { model: this.model, ctx: this.ctx };
  }

  tokenize(text: string, addSpecial: boolean): number[] {
    return Array.from(this.need().model.tokenize(text, addSpecial, false));
  }

  detokenize(tokens: number[]): string {
    return this.need().model.detokenize(Int32Array.from(tokens)).toString('utf8');
  }

  logits(tokens: number[]): number[] {
    return Array.from(this.need().ctx.evalLogits(tokens));
  }

  /** Prompt tokens for a request: raw text with BOS as the vocab asks, or the chat template. */
  promptTokens(params: GenerateParams): number[] {
    const { model } = this.need();
    if (params.messages && params.messages.length > 0) {
      let text: string;
      try {
        text = model.applyChatTemplate(params.messages, true);
      } catch (e) {
        throw new EngineError('CHAT_TEMPLATE', (e as Error).message);
      }
      // The rendered template carries its own special tokens as text.
      return Array.from(model.tokenize(text, true, true));
    }
    return Array.from(model.tokenize(params.prompt ?? '', true, false));
  }

  async generate(params: GenerateParams, onToken: (t: TokenEvent) => void): Promise<GenerationResult> {
    const { ctx } = this.need();
    const prompt = this.promptTokens(params);
    if (prompt.length === 0) throw new EngineError('EMPTY_PROMPT', 'the prompt is empty');
    const decoder = new TextDecoder('utf-8');
    let text = '';
    let delivered = 0;
    // The native promise can settle before the thread-safe function has delivered the last
    // tokens: the result waits for them (each token callback checks whether it was the last).
    let expected = Infinity;
    let allDelivered: () => void = () => {};
    const tokensIn = new Promise<void>((res) => (allDelivered = res));
    this.residency?.beginGeneration();
    const s = params.sampling;
    let r;
    try {
      r = await ctx.generate(
        prompt,
        {
          maxTokens: params.maxTokens,
          temperature: s.temperature,
          topK: s.topK,
          topP: s.topP,
          minP: s.minP,
          seed: s.seed,
          repeatPenalty: s.repeatPenalty,
          repeatLastN: s.repeatLastN,
        },
        (index, id, piece, tMs) => {
          // Bytes of a UTF-8 character split across tokens are held until it is complete.
          const delta = decoder.decode(piece, { stream: true });
          text += delta;
          delivered++;
          this.residency?.onToken(index + 1, tMs, index <= 1);
          onToken({ index, tokenId: id, text: delta, tMs });
          if (delivered >= expected) allDelivered();
        },
      );
    } catch (e) {
      throw new EngineError(codeOf(e, 'DECODE_FAILED'), (e as Error).message);
    }
    expected = r.tokens.length;
    // Bounded: a lost callback must not hang the worker (the text would then miss a piece).
    if (delivered < expected) await Promise.race([tokensIn, new Promise((res) => setTimeout(res, 5000).unref())]);
    const tail = decoder.decode();
    text += tail;
    const decodeMs = r.perTokenMs.slice(1).reduce((a, b) => a + b, 0);
    const nDecode = Math.max(0, r.tokens.length - 1);
    this.residency?.endGeneration();
    return {
      promptTokens: prompt,
      tokens: r.tokens,
      text,
      stopReason: r.stopReason,
      reusedTokens: r.reusedTokens,
      timings: {
        promptMs: r.promptMs,
        ttftMs: r.ttftMs,
        decodeMs,
        promptTokS: r.promptMs > 0 ? ((prompt.length - r.reusedTokens) * 1000) / r.promptMs : 0,
        decodeTokS: decodeMs > 0 ? (nDecode * 1000) / decodeMs : 0,
        perTokenMs: r.perTokenMs,
      },
    };
  }

  cancel(): void {
    this.ctx?.cancel();
  }

  async unload(): Promise<void> {
    this.residency = null;
    this.ctx?.free();
    this.ctx = null;
    this.model?.free();
    this.model = null;
    this.info = null;
  }
}
