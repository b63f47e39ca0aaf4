// The engine inside the inference worker: one model, one context, the residency runtime. It
// loads (engine-load.ts), turns requests into prompt tokens (prompt-tokens.ts) and generates,
// one request at a time (solo-generation.ts) or several together (batch-serving.ts).
// Only this process loads the native addon.
import type { AgreementResult, ChatPromptParams, ChatPromptResult, GenerateParams, GenerationResult, LoadParams, EmbedInput, EmbedPooling, EmbedResult, ModelInfo, TokenEvent } from '../shared/worker-protocol.js';
import { loadAddon, type NativeContext, type NativeModel } from '../native/addon.js';
import { loadModel } from '../native/load-model.js';
import type { LoadedDraft } from './draft-loader.js';
import { WorkerError, codeOf } from './worker-error.js';
import { DEFAULT_CTX, DEFAULT_GRAPH_TRACE_EVENTS, MAX_UBATCH, RPC_DEAD_PEER_MS, microBatch } from '../shared/settings/run-settings.js';
import { ResidencyRuntime } from './residency-runtime.js';
import { RoutingLog } from './routing-log.js';
import { offloadsToGpu, warmGpuContext } from './gpu-warmup.js';
import { collectGarbage } from './collect-garbage.js';
import { Embedder } from './embedder.js';
import { attachDraft, createTargetContext, deviceMemoryOf, expertsUsedOverride, modelInfoOf, openChecked, placementOf } from './engine-load.js';
import { chatPromptOf, promptTokensOf } from './prompt-tokens.js';
import { generateSolo } from './solo-generation.js';
import { samplingWithBias } from './sampling-bias.js';
import { BatchServing, type ServeStepEvent } from './batch-serving.js';
import { logprobsWithBytes } from './token-logprobs.js';

export class Engine {
  private model: NativeModel | null = null;
  private ctx: NativeContext | null = null;
  private draft: LoadedDraft | null = null;
  private info: ModelInfo | null = null;
  residency: ResidencyRuntime | null = null;
  /** A mixture of experts' routing, replayed, recorded or kept for the optimum (null: none asked). */
  private routing: RoutingLog | null = null;

  async load(params: LoadParams, onProgress: (f: number) => void): Promise<ModelInfo> {
    await this.unload();
    const { opened, files } = await openChecked(params.modelPath);
    const addon = loadAddon();
    const t0 = performance.now();
    let model: NativeModel;
    try {
      model = await loadModel(addon, [files[0] as string], { mmap: params.mmap ?? true, repack: params.repack ?? true, ...placementOf(params), ...expertsUsedOverride(opened, params), prefault: params.prefault !== false }, onProgress);
    } catch (e) {
      throw new WorkerError(codeOf(e, 'LOAD_FAILED'), (e as Error).message);
    }
    // Releasing pages by hand needs the engine, which plain `off` does not install: observe.
    const manual = (params.releaseLayers?.length ?? 0) > 0 || params.releaseMappingPages === true;
    const policy = manual && (params.policy ?? 'off') === 'off' ? 'observe' : (params.policy ?? 'off');
    params = { ...params, policy };
    // Under a cap the stream schedule measures what the process holds after load, and plans
    // the cap's split against it.
    const measuredSchedule = policy === 'stream' && params.ramBytes !== undefined;
    let routing: RoutingLog | null;
    try {
      routing = RoutingLog.open(model, params);
    } catch (e) {
      model.free();
      throw e;
    }
    const ctx = createTargetContext(model, params, routing?.nativeOption());
    this.parallel = Math.max(1, params.parallel ?? 1);
    this.loadThreads = params.threads ?? 0;
    this.loadUbatch = microBatch(params.batch ?? MAX_UBATCH, params.ctx ?? DEFAULT_CTX);
    if (offloadsToGpu(params)) warmGpuContext(ctx, Math.max(0, model.info().bos));
    const draft = params.draft ? await attachDraft(addon, opened, model, ctx, params) : null;
    const ni = model.info();
    this.model = model;
    this.ctx = ctx;
    this.draft = draft;
    this.info = modelInfoOf(files[0] as string, ni, ctx, draft, t0);
    if (params.offload) this.info.deviceMemory = deviceMemoryOf(addon, ctx);
    // A node's machine that vanishes (power, cable) is declared dead by TCP, not waited on for ever.
    if (params.offload?.rpcServers.length) addon.keepRpcAlive(params.offload.rpcServers, RPC_DEAD_PEER_MS);
    // Every policy is observed (mincore, /proc counters); only policies other than `off`
    // install the engine that acts on pages.
    // The loader's freed temporaries stay charged in the allocator's arenas until handed back,
    // and dead JS objects until the collector runs; the stream schedule is planned against what
    // is charged next (a full collection is paid only where something is measured).
    if (measuredSchedule) collectGarbage();
    addon.trimHeap();
    await this.startResidency(model, ctx, files, ni, params, draft);
    if (routing) routing.slotsPerLayer = this.residency?.schedule?.expertCache?.slotsPerLayer ?? null;
    if (routing && !routing.needed()) ctx.routingActive(false);
    this.routing = routing?.needed() ? routing : null;
    return this.info;
  }

  /** The residency runtime configured, traced where asked, and the pages asked for released. */
  private async startResidency(model: NativeModel, ctx: NativeContext, files: string[], ni: ReturnType<NativeModel['info']>, params: LoadParams, draft: LoadedDraft | null): Promise<void> {
    const info = this.info as ModelInfo;
    // Weights a draft reads through the target's copy stay resident (never streamed).
    this.residency = new ResidencyRuntime(model, ctx, files, ni.nLayers, params, new Set(draft?.sharedNames ?? []));
    this.residency.configure();
    info.schedule = this.residency.schedule;
    if (params.graphTrace || params.policy === 'reuse-aware') this.residency.traceAndProfile(ni.bos >= 0 ? ni.bos : 0, params.graphTrace?.maxEvents ?? DEFAULT_GRAPH_TRACE_EVENTS);
    info.residencyRows = this.residency.rowSpecs;
    const release = new Set(params.releaseLayers ?? []);
    // Without a plan no layer is pinned: every layer's mapping pages go.
    if (params.releaseMappingPages) this.residency.tiers.forEach((t, i) => (t === 'streamed' || !params.tiers) && release.add(i));
    try {
      this.residency.releaseNow([...release].sort((a, b) => a - b));
    } catch (e) {
      await this.unload();
      throw new WorkerError('BAD_ARGUMENT', (e as Error).message);
    }
  }

  modelInfo(): ModelInfo | null {
    return this.info;
  }

  private need(): { model: NativeModel; ctx: NativeContext } {
    if (!this.model || !this.ctx) throw new WorkerError('NO_MODEL', 'no model is loaded');
    return { model: this.model, ctx: this.ctx };
  }

  tokenize(text: string, addSpecial: boolean, parseSpecial = false): number[] {
    return Array.from(this.need().model.tokenize(text, addSpecial, parseSpecial));
  }

  /** Each token's text, special tokens as written (llama-server's with_pieces). */
  pieces(tokens: number[]): string[] {
    const { model } = this.need();
    return tokens.map((t) => model.tokenToPiece(t, true).toString('utf8'));
  }

  /** `special`: control tokens (BOS, EOS) written as their text rather than left out. */
  detokenize(tokens: number[], special = false): string {
    return this.need().model.detokenize(Int32Array.from(tokens), false, special).toString('utf8');
  }

  logits(tokens: number[]): number[] {
    return Array.from(this.need().ctx.evalLogits(tokens));
  }

  /**
   * Teacher forcing: the prompt in micro-batches, then each token of the continuation decoded on
   * its own (as generation decodes), counting where the model's greedy choice is the
   * continuation's next token. The KV cache is cleared before and after, and the expert cache
   * emptied before.
   */
  agreement(prompt: number[], continuation: number[]): AgreementResult {
    const { ctx } = this.need();
    if (prompt.length === 0 || continuation.length === 0) throw new WorkerError('BAD_ARGUMENT', 'agreement needs a prompt and a continuation');
    // From an empty expert cache, as the generation it is set against started.
    const argmax = loadAddon().greedyPositions(ctx, Int32Array.from([...prompt, ...continuation]), prompt.length, true);
    let same = 0;
    for (let j = 0; j < continuation.length; j++) if (argmax[prompt.length - 1 + j] === continuation[j]) same++;
    return { positions: continuation.length, same };
  }

  /** Prompt tokens for a request: raw text with BOS as the vocab asks, or the chat template. */
  promptTokens(params: GenerateParams): Promise<number[]> {
    return promptTokensOf(this.need().model, params);
  }

  /** The prompt text chat turns render to (llama-server's /apply-template), as a generation renders them. */
  chatPrompt(chat: ChatPromptParams): Promise<ChatPromptResult> {
    return chatPromptOf(this.need().model, chat);
  }

  /** Sequences decoded together (the context was made with that many); 1 = one request at a time. */
  parallel = 1;
  /** The batch server, from the first request of a context made for several sequences. */
  private serving: BatchServing | null = null;
  /** Weight passes the batch server has made, and the tokens they computed (server statistics). */
  onStep: ((e: ServeStepEvent) => void) | null = null;

  /**
   * One request. With several sequences, requests run concurrently through the batch server
   * (each joins the next step and leaves when done); else one at a time on the context, reusing
   * the cached prefix of the previous turn.
   */
  async generate(params: GenerateParams, onToken: (t: TokenEvent) => void, requestId?: number): Promise<GenerationResult> {
    const prompt = await this.promptTokens(params);
    if (prompt.length === 0) throw new WorkerError('EMPTY_PROMPT', 'the prompt is empty');
    const { ctx, model } = this.need();
    const withBytes = logprobsWithBytes(model);
    const { sampling, bias } = samplingWithBias(params.sampling, model);
    const run = { ...params, sampling };
    let r: GenerationResult;
    if (this.parallel <= 1) {
      r = await generateSolo(ctx, this.residency, prompt, run, onToken, withBytes);
    } else {
      this.serving ??= new BatchServing(ctx, this.residency, (e) => this.onStep?.(e));
      r = await this.serving.submit(prompt, run, onToken, withBytes, requestId);
    }
    if (bias.length > 0) r.logitBias = bias;
    if (this.routing) r.routing = this.routing.absorb(ctx.routingTake());
    return r;
  }

  /** Cancels one request (by the host's request id), or every request. */
  cancel(requestId?: number): void {
    if (this.parallel > 1) this.serving?.cancel(requestId);
    else this.ctx?.cancel();
  }

  private embedder: Embedder | null = null;
  /** The threads the model was loaded with (0 = llama.cpp's choice), for the embedding context too. */
  private loadThreads = 0;
  /** The micro-batch it was loaded with: the plan sized the embeddings context by it. */
  private loadUbatch: number = MAX_UBATCH;

  /** Embeddings of each text (a context of their own, made on the first call). */
  async embed(texts: EmbedInput[], truncate = false, pooling: EmbedPooling = 'mean'): Promise<EmbedResult> {
    const { model } = this.need();
    if (this.residency?.movesWeights) {
      throw new WorkerError('EMBEDDINGS_UNAVAILABLE', 'embeddings are not available while this model streams its weights from storage (it does not fit its cap): give it a cap it fits in (`ramforge plan --serve` shows full residency)');
    }
    this.embedder ??= new Embedder(model, this.loadThreads, this.loadUbatch);
    try {
      return await this.embedder.embed(texts, truncate, pooling);
    } catch (e) {
      throw new WorkerError(codeOf(e, 'DECODE_FAILED'), (e as Error).message);
    }
  }

  async unload(): Promise<void> {
    // Before the model: its context holds the weights.
    this.embedder?.free();
    this.embedder = null;
    this.serving?.close();
    this.serving = null;
    this.residency = null;
    this.routing = null;
    this.ctx?.free();
    this.ctx = null;
    // After the target's context: it holds the draft's context while attached.
    this.draft?.ctx.free();
    this.draft?.model.free();
    this.draft = null;
    this.model?.free();
    this.model = null;
    this.info = null;
  }
}
