// The engine inside the inference worker: one model, one context, the residency runtime.
// Only this process loads the native addon.
import type {
  GenerateParams,
  GenerationResult,
  LoadParams,
  EmbedResult,
  ModelInfo,
  TokenEvent,
  ChatMessage,
  ToolSpec,
  DeviceMemory,
} from '../shared/worker-protocol.js';
import { loadAddon, type NativeAddon, type NativeContext, type NativeModel, type NativeModelOptions, type NativeServeEvent } from '../native/addon.js';
import { loadModel } from '../native/load-model.js';
import { ModelRefusedError, openModelForLoad } from '../node/model-check.js';
import type { OpenedModel } from '../node/gguf-file.js';
import { loadDraft, type LoadedDraft } from './draft-loader.js';
import { WorkerError } from './worker-error.js';
import { DRAFT_CONTEXT_BATCH } from '../shared/draft/draft-budget.js';
import { DEFAULT_CTX, DEFAULT_GRAPH_TRACE_EVENTS, MAX_UBATCH, RPC_DEAD_PEER_MS, draftRefusal } from '../shared/settings/run-settings.js';
import { ResidencyRuntime } from './residency-runtime.js';
import { offloadsToGpu, warmGpuContext } from './gpu-warmup.js';
import { basename } from 'node:path';
import { collectGarbage } from './collect-garbage.js';
import { Embedder } from './embedder.js';
import { ChatTemplateError, needsToolRendering, renderToolChat } from './tool-template.js';

/** The native error's own code (BUSY, FREED, BAD_ARGUMENT, …) when it has one, else `fallback`. */
function codeOf(e: unknown, fallback: string): string {
  const c = (e as { code?: unknown })?.code;
  return typeof c === 'string' && /^[A-Z_]+$/.test(c) ? c : fallback;
}

/** Our hardened reader sees the file before llama.cpp does, whoever asked for the load. */
async function openChecked(modelPath: string): Promise<{ opened: OpenedModel; files: string[] }> {
  try {
    const opened = await openModelForLoad(modelPath);
    return { opened, files: opened.shards.map((s) => s.path) };
  } catch (e) {
    if (e instanceof ModelRefusedError) throw new WorkerError(e.code, e.message);
    throw e;
  }
}

/** The draft loaded beside the target and attached to its context; on failure everything loaded is freed. */
async function attachDraft(addon: NativeAddon, opened: OpenedModel, model: NativeModel, ctx: NativeContext, params: LoadParams): Promise<LoadedDraft> {
  let draft: LoadedDraft | null = null;
  try {
    const refused = draftRefusal(true, params.parallel ?? 1);
    if (refused) throw new WorkerError('BAD_ARGUMENT', refused);
    draft = await loadDraft(addon, opened, model, params.draft!, { repack: params.repack ?? true, prefault: params.prefault !== false }, {
      nCtx: params.ctx ?? DEFAULT_CTX,
      nSeq: 1,
      nThreads: params.threads ?? 0,
      // The draft decodes one token at a time; only catching up with a prompt takes more.
      // Its compute buffer and logits grow with the batch (4 B × vocabulary per token).
      nBatch: Math.min(params.batch ?? MAX_UBATCH, DRAFT_CONTEXT_BATCH),
      // Not precharged: its own buffers are a few MiB, and faulting in every anonymous
      // region that grew since the target's context would charge the arenas the draft's
      // loader left free (measured: 22 MiB charged, 3 MiB used).
      precharge: false,
    });
    ctx.attachDraft(draft.ctx, { max: params.draft!.max, min: params.draft!.min });
    return draft;
  } catch (e) {
    draft?.ctx.free();
    draft?.model.free();
    ctx.free();
    model.free();
    throw new WorkerError(e instanceof WorkerError ? e.code : codeOf(e, 'DRAFT_FAILED'), (e as Error).message);
  }
}

function modelInfoOf(path: string, ni: ReturnType<NativeModel['info']>, ctx: NativeContext, draft: LoadedDraft | null, t0: number): ModelInfo {
  return {
    path,
    name: ni.metadata['general.name'] || basename(path),
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
    draft: draft?.info ?? null,
  };
}

/** What llama.cpp holds on each device that is not host memory, summed over its buffer types. */
function deviceMemoryOf(addon: NativeAddon, ctx: NativeContext): DeviceMemory[] {
  const by = new Map<string, DeviceMemory>();
  for (const b of addon.memoryBreakdown(ctx)) {
    if (b.host || b.device === null) continue;
    const d = by.get(b.device) ?? { device: b.device, modelBytes: 0, contextBytes: 0, computeBytes: 0, totalBytes: 0 };
    d.modelBytes += b.model;
    d.contextBytes += b.context;
    d.computeBytes += b.compute;
    d.totalBytes += b.model + b.context + b.compute;
    by.set(b.device, d);
  }
  return [...by.values()];
}

/** The addon's placement options: the offload's devices and shares, else the plain layer count. */
function placementOf(params: LoadParams): Pick<NativeModelOptions, 'gpuLayers' | 'devices' | 'tensorSplit' | 'cpuTensors' | 'rpcServers'> {
  const o = params.offload;
  if (!o) return { gpuLayers: params.gpuLayers ?? 0 };
  return { gpuLayers: o.layers, devices: o.devices, tensorSplit: o.split, rpcServers: o.rpcServers, ...(o.cpuTensors ? { cpuTensors: o.cpuTensors } : {}) };
}

export class Engine {
  private model: NativeModel | null = null;
  private ctx: NativeContext | null = null;
  private draft: LoadedDraft | null = null;
  private info: ModelInfo | null = null;
  residency: ResidencyRuntime | null = null;

  async load(params: LoadParams, onProgress: (f: number) => void): Promise<ModelInfo> {
    await this.unload();
    const { opened, files } = await openChecked(params.modelPath);
    const addon = loadAddon();
    const t0 = performance.now();
    let model: NativeModel;
    try {
      model = await loadModel(addon, [files[0] as string], { mmap: params.mmap ?? true, repack: params.repack ?? true, ...placementOf(params), prefault: params.prefault !== false }, onProgress);
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
    const ctx = this.createContext(model, params, measuredSchedule);
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
    return this.info;
  }

  /** The target's context: each sequence gets the context the settings ask for. Frees the model if it cannot be made. */
  private createContext(model: NativeModel, params: LoadParams, measuredSchedule: boolean): NativeContext {
    const policy = params.policy;
    try {
      const parallel = Math.max(1, params.parallel ?? 1);
      const rpcServers = params.offload?.rpcServers ?? [];
      this.parallel = parallel;
      this.loadThreads = params.threads ?? 0;
      return model.createContext({
        // Each sequence gets the context the settings ask for.
        nCtx: (params.ctx ?? DEFAULT_CTX) * parallel,
        nSeq: parallel,
        nThreads: params.threads ?? 0,
        nBatch: params.batch ?? MAX_UBATCH,
        // Layers on RPC nodes: the native half times the waits on each, whatever the policy.
        observeLayers: policy !== 'off' || params.graphTrace !== undefined || rpcServers.length > 0,
        ...(rpcServers.length > 0 ? { remoteNodes: rpcServers } : {}),
        layerCallback: params.graphTrace !== undefined || policy === 'reuse-aware' || ResidencyRuntime.streams(params),
        // The stream schedule plans against what is charged at load: charge the buffers now.
        precharge: measuredSchedule,
      });
    } catch (e) {
      model.free();
      throw new WorkerError(codeOf(e, 'CONTEXT_FAILED'), (e as Error).message);
    }
  }

  /** The residency runtime configured, traced where asked, and the pages asked for released. */
  private async startResidency(model: NativeModel, ctx: NativeContext, files: string[], ni: ReturnType<NativeModel['info']>, params: LoadParams, draft: LoadedDraft | null): Promise<void> {
    const info = this.info as ModelInfo;
    // Weights a draft reads through the target's copy stay resident (never streamed).
    this.residency = new ResidencyRuntime(model, ctx, files, ni.nLayers, params, new Set(draft?.sharedNames ?? []));
    this.residency.configure();
    info.schedule = this.residency.schedule;
    if (params.graphTrace || params.policy === 'reuse-aware') this.residency.traceAndProfile(ni.bos >= 0 ? ni.bos : 0, params.graphTrace?.maxEvents ?? DEFAULT_GRAPH_TRACE_EVENTS);
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
      if (needsToolRendering(params.messages, params.tools)) return this.toolPromptTokens(model, params.messages, params.tools ?? []);
      let text: string;
      try {
        text = model.applyChatTemplate(params.messages, true);
      } catch (e) {
        throw new WorkerError('CHAT_TEMPLATE', (e as Error).message);
      }
      // The rendered template carries its own special tokens as text.
      return Array.from(model.tokenize(text, true, true));
    }
    return Array.from(model.tokenize(params.prompt ?? '', true, false));
  }

  /** Tools, tool calls or tool results: the model's Jinja template rendered here, in the worker (it is untrusted). */
  private toolPromptTokens(model: NativeModel, messages: ChatMessage[], tools: ToolSpec[]): number[] {
    const info = model.info();
    const template = info.chatTemplate;
    if (!template) throw new WorkerError('CHAT_TEMPLATE', 'the model has no chat template');
    const piece = (id: number) => (id >= 0 ? model.tokenToPiece(id, true).toString('utf8') : '');
    const tokens = { bos: piece(info.bos), eos: piece(info.eos) };
    let text: string;
    try {
      text = renderToolChat(template, messages, tools, tokens);
    } catch (e) {
      if (e instanceof ChatTemplateError) throw new WorkerError('CHAT_TEMPLATE', e.message);
      throw e;
    }
    // A template that writes bos_token itself must not get a second one from the tokenizer.
    const addSpecial = !(tokens.bos !== '' && text.startsWith(tokens.bos));
    return Array.from(model.tokenize(text, addSpecial, true));
  }

  /** Sequences decoded together (the context was made with that many); 1 = one request at a time. */
  parallel = 1;
  private serving: Map<number, { onEvent: (e: NativeServeEvent) => void }> | null = null;
  /** Weight passes the batch server has made, and the tokens they computed (server statistics). */
  onStep: ((e: Extract<NativeServeEvent, { type: 'step' }>) => void) | null = null;

  /**
   * One request. With several sequences, requests run concurrently through the batch server
   * (each joins the next step and leaves when done); else one at a time on the context, reusing
   * the cached prefix of the previous turn.
   */
  async generate(params: GenerateParams, onToken: (t: TokenEvent) => void, requestId?: number): Promise<GenerationResult> {
    const prompt = this.promptTokens(params);
    if (prompt.length === 0) throw new WorkerError('EMPTY_PROMPT', 'the prompt is empty');
    if (this.parallel > 1) return this.serve(prompt, params, onToken, requestId);
    return this.generateSolo(prompt, params, onToken);
  }

  private requestIds = new Map<number, number>();

  private async serve(prompt: number[], params: GenerateParams, onToken: (t: TokenEvent) => void, requestId?: number): Promise<GenerationResult> {
    const { ctx } = this.need();
    if (!this.serving) {
      const serving = new Map<number, { onEvent: (e: NativeServeEvent) => void }>();
      ctx.serveOpen((e) => {
        if (e.type === 'step') this.onStep?.(e);
        else serving.get(e.id)?.onEvent(e);
      });
      this.serving = serving;
    }
    const decoder = new TextDecoder('utf-8');
    let text = '';
    let id = -1;
    // The residency timeline's phases follow the server: busy from the first request to the last.
    if (this.inFlight++ === 0) this.residency?.beginGeneration();
    const done = new Promise<Extract<NativeServeEvent, { type: 'done' }>>((resolve, reject) => {
      const onEvent = (e: NativeServeEvent) => {
        if (e.type === 'token') {
          const delta = decoder.decode(e.piece, { stream: true });
          text += delta;
          this.tokensServed++;
          this.residency?.onToken(this.tokensServed, e.tMs, false);
          onToken({ index: e.index, tokenId: e.token, text: delta, tMs: e.tMs });
        } else if (e.type === 'done') resolve(e);
        else if (e.type === 'error') reject(new WorkerError('DECODE_FAILED', e.message));
      };
      try {
        id = ctx.serveSubmit(prompt, { maxTokens: params.maxTokens, ...params.sampling });
      } catch (e) {
        reject(new WorkerError(codeOf(e, 'BAD_ARGUMENT'), (e as Error).message));
        return;
      }
      this.serving?.set(id, { onEvent });
      if (requestId !== undefined) this.requestIds.set(requestId, id);
    });
    try {
      const r = await done;
      text += decoder.decode();
      const decodeMs = r.perTokenMs.slice(1).reduce((a, b) => a + b, 0);
      const nDecode = Math.max(0, r.tokens.length - 1);
      return {
        promptTokens: prompt,
        tokens: r.tokens,
        text,
        stopReason: r.stopReason,
        reusedTokens: 0,
        timings: {
          promptMs: r.promptMs,
          ttftMs: r.ttftMs,
          decodeMs,
          promptTokS: r.promptMs > 0 ? (prompt.length * 1000) / r.promptMs : 0,
          decodeTokS: decodeMs > 0 ? (nDecode * 1000) / decodeMs : 0,
          perTokenMs: r.perTokenMs,
        },
      };
    } finally {
      this.serving?.delete(id);
      if (requestId !== undefined) this.requestIds.delete(requestId);
      if (--this.inFlight === 0) this.residency?.endGeneration();
    }
  }

  private inFlight = 0;

  private tokensServed = 0;

  private async generateSolo(prompt: number[], params: GenerateParams, onToken: (t: TokenEvent) => void): Promise<GenerationResult> {
    const { ctx } = this.need();
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
          ...(s.grammar !== undefined ? { grammar: s.grammar } : {}),
        },
        (index, id, piece, tMs, pass) => {
          // Bytes of a UTF-8 character split across tokens are held until it is complete.
          const delta = decoder.decode(piece, { stream: true });
          text += delta;
          delivered++;
          this.residency?.onToken(index + 1, tMs, index <= 1);
          onToken(pass ? { index, tokenId: id, text: delta, tMs, pass: { drafted: pass.drafted, accepted: pass.accepted } } : { index, tokenId: id, text: delta, tMs });
          if (delivered >= expected) allDelivered();
        },
      );
    } catch (e) {
      throw new WorkerError(codeOf(e, 'DECODE_FAILED'), (e as Error).message);
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
      ...(r.draft ? { draft: r.draft } : {}),
    };
  }

  /** Cancels one request (by the host's request id), or every request. */
  cancel(requestId?: number): void {
    if (this.parallel > 1 && this.ctx) {
      if (requestId === undefined) for (const id of this.serving?.keys() ?? []) this.ctx.serveCancel(id);
      else {
        const id = this.requestIds.get(requestId);
        if (id !== undefined) this.ctx.serveCancel(id);
      }
      return;
    }
    this.ctx?.cancel();
  }

  private embedder: Embedder | null = null;
  /** The threads the model was loaded with (0 = llama.cpp's choice), for the embedding context too. */
  private loadThreads = 0;

  /** Embeddings of each text (a context of their own, made on the first call). */
  async embed(texts: string[]): Promise<EmbedResult> {
    const { model } = this.need();
    this.embedder ??= new Embedder(model, this.loadThreads);
    try {
      return await this.embedder.embed(texts);
    } catch (e) {
      throw new WorkerError(codeOf(e, 'DECODE_FAILED'), (e as Error).message);
    }
  }

  async unload(): Promise<void> {
    // Before the model: its context holds the weights.
    this.embedder?.free();
    this.embedder = null;
    if (this.serving) {
      this.ctx?.serveClose();
      this.serving = null;
    }
    this.residency = null;
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
