// Finds and loads the native addon, and types its surface. Only the inference worker (and
// native tests) load it: a GGML_ABORT in llama.cpp kills the process that holds it.
import type { EmbedPooling } from '../shared/generation-protocol.js';
import type { ExpertSample } from '../shared/residency-types.js';
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../node/paths.js';
import type { SamplingParams } from '../shared/worker-protocol.js';

export interface NativeModelOptions {
  mmap?: boolean;
  repack?: boolean;
  gpuLayers?: number;
  /** Load only the tokenizer (llama.cpp's vocab-only files, tokenizer tests). */
  vocabOnly?: boolean;
  /** Devices the offloaded layers go to, in order: ggml names, or `rpc:host:port` for an RPC node. Absent or empty: none. */
  devices?: string[];
  /** Each device's share of the offloaded layers (whole numbers give exact layer counts). */
  tensorSplit?: number[];
  /** Tensor-name patterns (regular expressions) kept in CPU RAM wherever their layer is. */
  cpuTensors?: string[];
  /** llama.cpp RPC servers (host:port) to register before the devices are looked up. */
  rpcServers?: string[];
  /** Integer metadata read in place of the file's (llama.cpp's --override-kv KEY=int:N). */
  kvOverrides?: { key: string; int: number }[];
}

/** A ggml device as its backend reports it. */
export interface NativeDevice {
  name: string;
  description: string;
  type: 'cpu' | 'gpu' | 'igpu' | 'accel';
  backend: string;
  memoryFree: number;
  memoryTotal: number;
}

/** One TCP connection of this process, with the kernel's byte counters. */
export interface NativeSocketStat {
  peer: string;
  bytesSent: number;
  bytesReceived: number;
}

export interface NativeModelInfo {
  description: string;
  nParams: number;
  sizeBytes: number;
  nLayers: number;
  nCtxTrain: number;
  nEmbd: number;
  nHead: number;
  nHeadKv: number;
  nVocab: number;
  bos: number;
  eos: number;
  addBos: boolean;
  /** Fill-in-the-middle tokens, -1 where the vocabulary has none. */
  fim: { pre: number; suf: number; mid: number; rep: number; sep: number };
  loadMs: number;
  chatTemplate: string | null;
  metadata: Record<string, string>;
  paths: string[];
}

export interface NativeTensor {
  name: string;
  type: string;
  bytes: number;
  /** Host address of the tensor's data (in the file mapping when mmapped, else anonymous). */
  addr: number;
  buffer: string | null;
  host: boolean;
}

/** Per selection [turn, phase, first step, layer, tokens]; `used` expert ids per token; weights per id (empty unless recorded). */
export interface NativeRouting {
  selections: Int32Array;
  ids: Int32Array;
  weights: Float32Array;
  replacedTokens: number;
  promptWraps: number;
  decodeWraps: number;
  droppedIds: number;
}

export interface NativeContextOptions {
  /** Total context: nSeq sequences share it equally. */
  nCtx?: number;
  /** Sequences decoded together (continuous batching); default 1. */
  nSeq?: number;
  nThreads?: number;
  nBatch?: number;
  /** Create the residency engine (mincore sampling, releases, manual drops). */
  observeLayers?: boolean;
  /** With observeLayers: also install its layer-boundary eval callback (default true). */
  layerCallback?: boolean;
  /** Layers on a Vulkan device: the first decode of each batch size computes node by node (ggml's Vulkan scratch buffers grow mid-graph: residency.h). */
  guardNewBatchSizes?: boolean;
  /** RPC nodes holding offloaded layers: the eval callback times the waits on each. */
  remoteNodes?: string[];
  /** A mixture of experts' routing tap: the MoE layers, recording, a trace replayed (routing.h). */
  routing?: {
    moeLayers: number[];
    experts: number;
    used: number;
    record?: boolean;
    recordWeights?: boolean;
    replay?: { promptSteps: number; decodeSteps: number; prompt: Int32Array; decode: Int32Array };
  };
  /** For embed(): embeddings on, mean pooling, a text in one micro-batch (at most nBatch tokens). */
  embeddings?: boolean;
  /** With embeddings: 'none' makes embed() give every token's hidden state (n_tokens × n_embd floats) instead of their mean. */
  pooling?: EmbedPooling;
}

/** -1 none, else the sampled token's log-probability and this many of the most likely (logprobs.h). */
export type NativeGenerateOptions = SamplingParams & { maxTokens: number; logprobs?: number; promptLogprobs?: boolean; postSamplingProbs?: boolean };

/** A position's token and the most likely there, log-probabilities of the raw logits' softmax. */
export interface NativeLogprobs {
  id: number;
  logprob: number;
  top: { id: number; logprob: number }[];
}

export interface NativeGenerateResult {
  tokens: number[];
  perTokenMs: number[];
  stopReason: 'eos' | 'max_tokens' | 'cancelled' | 'ctx_full';
  promptMs: number;
  ttftMs: number;
  totalMs: number;
  reusedTokens: number;
  /** llama_decode calls of the prompt and the token loop (a speculative pass's verification not counted). */
  decodes: number;
  /** promptLogprobs asked: prompt tokens 1..n-1. */
  promptLogprobs?: NativeLogprobs[];
  /** With a draft attached: what the passes drafted and kept. */
  draft?: { drafted: number; accepted: number; passes: number; draftMs: number; verifyMs: number };
}

export interface NativeResidencyLayer {
  index: number;
  /** 0 pinned, 1 streamed, 2 vram */
  tier: 0 | 1 | 2;
  /** [address, length, fileIndex, fileOffset], page aligned, never shared with a pinned tensor. */
  ranges: [number, number, number, number][];
}

export interface NativeStreamUnit {
  layer: number;
  /** Index into the files. */
  file: number;
  /** Adjacent in the file: name, offset of the data in the file, bytes. */
  tensors: { name: string; offset: number; bytes: number }[];
}

export interface NativeStreamConfig {
  units: NativeStreamUnit[];
  windowBytes: number;
  pinned: [number, number, number, number][];
  random: [number, number, number, number][];
  ioThreads?: number;
  ioChunkBytes?: number;
  /** O_DIRECT reads where the file system allows them (default true); false reads through the page cache. */
  directIo?: boolean;
  /** A mixture of experts: the expert tensors the expert cache serves (native/src/experts.h). */
  experts?: NativeExpertConfig;
}

export interface NativeExpertConfig {
  tensors: { name: string; layer: number; file: number; offset: number }[];
  /** Experts each MoE layer's cache holds. */
  slotsPerLayer: number;
  /** A buffer for one layer's every expert (a micro-batch routed to more than the cache holds). */
  staging?: boolean;
  /** Read the next layer's predicted experts ahead. */
  predict?: boolean;
  /** Which expert a full cache gives up: the least recently or the least frequently used. */
  evict?: 'lru' | 'lfu';
  /** Slots in the CPU kernels' repacked layout (LoadParams.repackExperts). */
  repack?: boolean;
  ioThreads?: number;
  /** Lossy: a decoded token's missed expert weighted below this share is computed from zeros instead of read. */
  skipBelow?: number;
  /** Per MoE layer, experts read into its slots at setup (earlier runs' most used: shared/moe/warm-start.ts). */
  warm?: { layer: number; experts: number[] }[];
  /** A GPU tier above the RAM slots: the expert tensors in slots of this ggml device's memory, computed there. */
  device?: { name: string; slotsPerLayer: number };
}

/** The expert cache's counters since setup (a sample's, and how it was set up). */
export interface NativeExpertCounters extends ExpertSample {
  slotBytes: number;
  slotsPerLayer: number;
  layers: number;
  experts: number;
  readErrors: number;
  directIo: boolean;
  /** Expert tensors whose slots hold ggml-cpu's repacked layout (experts_repack.cpp). */
  repackedProjections: number;
  /** The GPU tier: device memory its slots and staging buffer hold, its slots per layer, its device (absent without one). */
  deviceSlotBytes: number;
  deviceSlotsPerLayer: number;
  device?: string;
}

export interface NativeResidencyConfig {
  policy: string;
  files: string[];
  layers: NativeResidencyLayer[];
  targetBytes: number;
  releaseOrder?: number[];
  /** Required by the stream policy. */
  stream?: NativeStreamConfig;
}

export interface NativeResidencyEvent {
  tMs: number;
  kind: 'prefetch' | 'drop' | 'late' | 'stall' | 'release';
  layer: number;
  bytes: number;
  durMs: number;
}

export interface NativeResidencyCounters {
  /** Bytes of streamed units read, and how many reads. */
  prefetchBytes: number;
  prefetches: number;
  /** Sum over units of the time from the first request to the last byte. */
  prefetchMs: number;
  /** Wall time at least one read was in flight. */
  ioBusyMs: number;
  prefetchHits: number;
  stalls: number;
  late: number;
  stallMs: number;
  readErrors: number;
  splits: number;
  releases: number;
  /** The streaming window as allocated: bytes and slots. */
  windowBytes: number;
  windowSlots: number;
  /** Direct I/O (else buffered reads whose page cache is dropped after). */
  directIo: boolean;
  droppedBytes: number;
  drops: number;
  releasedBytes: number;
  pinnedBytes: number;
  pinnedLockedBytes: number;
  lockError: string | null;
}

export interface NativeResidencySample {
  layerResident: (number | null)[];
  /** Resident bytes of the locked (pinned) weight ranges; null without a stream schedule. */
  pinnedResident: number | null;
  events: NativeResidencyEvent[];
  counters: NativeResidencyCounters;
  /** Only with an expert cache. */
  experts?: NativeExpertCounters;
  /** Only with remoteNodes: milliseconds waited on each, since the context was made. */
  remoteWaitMs?: number[];
}

export interface NativeTrace {
  nodes: { name: string; op: string; srcs: string[]; bytes: number; group: number }[];
  dropped: number;
  captured: boolean;
}

/** What the batch server reports, one event at a time. */
export type NativeServeEvent =
  | { type: 'token'; id: number; index: number; token: number; piece: Buffer; tMs: number; logprobs?: NativeLogprobs }
  | { type: 'done'; id: number; tokens: number[]; perTokenMs: number[]; stopReason: 'eos' | 'max_tokens' | 'cancelled' | 'ctx_full'; promptMs: number; ttftMs: number; totalMs: number; promptTokens: number; promptLogprobs?: NativeLogprobs[] }
  | { type: 'error'; id: number; message: string }
  /** One pass over the weights: the sequences in it, the tokens it computed, how many of them were decode steps. */
  | { type: 'step'; id: number; sequences: number; tokens: number; decoded: number; ms: number; tMs: number };

export interface NativeContext {
  /** Continuous batching over the context's sequences; generate() answers BUSY while open. */
  serveOpen(onEvent: (e: NativeServeEvent) => void): void;
  serveSubmit(prompt: Int32Array | number[], opts: NativeGenerateOptions): number;
  serveCancel(id: number): void;
  /** Ends every request (each gets its 'done' event) and stops the loop. */
  serveClose(): void;
  serveInfo(): { open: boolean; sequences: number; queued: number; active: number };
  evalLogits(tokens: Int32Array | number[]): Float32Array;
  /** A context made with {embeddings: true}: the mean-pooled hidden state of the text (n_embd floats, not normalized). */
  embed(tokens: Int32Array | number[]): Promise<Float32Array>;
  generate(
    prompt: Int32Array | number[],
    opts: NativeGenerateOptions,
    onToken?: (index: number, id: number, piece: Buffer, tMs: number, pass?: NativeDraftPass, logprobs?: NativeLogprobs) => void,
  ): Promise<NativeGenerateResult>;
  /** Later generate() calls decode speculatively, `draft` proposing (it is reserved while attached). */
  attachDraft(draft: NativeContext, opts: { max: number; min: number; pMin?: number }): void;
  detachDraft(): void;
  cancel(): void;
  clearMemory(): void;
  info(): { nCtx: number; nBatch: number; nThreads: number; cachedTokens: number };
  residencyConfigure(cfg: NativeResidencyConfig): void;
  residencySample(): NativeResidencySample;
  /** Drops (or reads, synchronously) one layer's exclusive pages; returns the bytes. */
  residencyDrop(layer: number): number;
  residencyPrefetch(layer: number): number;
  /** Capture the scheduler nodes of the next single-token decode, at most maxEvents of them. */
  traceArm(maxEvents: number): void;
  traceTake(): NativeTrace;
  /** What the routing tap recorded since the last take (null: no tap). */
  routingTake(): NativeRouting | null;
  /** Turns the routing tap on or off (off: it asks for no node and records nothing). */
  routingActive(on: boolean): void;
  free(): void;
}

export interface NativeModel {
  info(): NativeModelInfo;
  tokenize(text: string, addSpecial?: boolean, parseSpecial?: boolean): Int32Array;
  tokenToPiece(token: number, special?: boolean): Buffer;
  detokenize(tokens: Int32Array, removeSpecial?: boolean, unparseSpecial?: boolean): Buffer;
  isEog(token: number): boolean;
  applyChatTemplate(messages: { role: string; content: string }[], addAssistant?: boolean, template?: string): string;
  createContext(opts?: NativeContextOptions): NativeContext;
  tensors(): NativeTensor[];
  free(): void;
}

export interface NativeAddon {
  systemInfo(): {
    system: string;
    mmapSupported: boolean;
    mlockSupported: boolean;
    gpuOffload: boolean;
    devices: NativeDevice[];
  };
  loadModel(paths: string[], opts?: NativeModelOptions, onProgress?: (fraction: number) => void): Promise<NativeModel>;
  /** Every device ggml has, after registering these RPC servers (each answered our handshake). */
  listDevices(rpcServers?: string[]): NativeDevice[];
  /** This process's TCP connections (the RPC backend's among them). */
  socketStats(): NativeSocketStat[];
  /** The connections to these nodes' ports declare the peer dead after timeoutMs unanswered; returns how many were armed. */
  keepRpcAlive(endpoints: string[], timeoutMs: number): number;
  /** mincore over each layer's [addr, len, ...] ranges; null where a range is not mapped. */
  residentBytes(layers: number[][][]): (number | null)[];
  /** Page-cache residency of [offset, len] file ranges through a fresh view of the file. */
  fileResident(path: string, ranges: [number, number][]): number[];
  /** Read speed of the device holding `path`: direct I/O, 4 requests of 4 MiB in flight, into 2 MiB pages. */
  measureRead(path: string, opts?: { bytes?: number; chunkBytes?: number; threads?: number; offset?: number; scatter?: boolean }): Promise<{ bytes: number; seconds: number; direct: boolean }>;
  /** Hands the allocator's free pages back to the kernel (malloc_trim); returns the RSS bytes released. */
  trimHeap(): number;
  /** Compares file ranges byte for byte (off the JS thread; the pages read leave the page cache). */
  sameBytes(pairs: { a: string; aOffset: number; b: string; bOffset: number; length: number }[]): Promise<boolean[]>;
  /** Points the draft's tensors `names` at the target's copy; before the draft has a context. Returns the bytes shared. */
  shareWeights(draft: NativeModel, target: NativeModel, names: string[]): number;
  /** The Vulkan physical devices as the loader lists them, without starting ggml (native/src/gpu_js.cpp). */
  vulkanDevices(): { built: boolean; error: string | null; devices: NativeVulkanDevice[] };
  /** Bytes llama.cpp holds for the context's model, KV cache and compute buffers, per buffer type. */
  memoryBreakdown(ctx: NativeContext): NativeBufferMemory[];
  /** The most likely next token after every prefix of `tokens`, from one pass (the cache is cleared). */
  /**
   * The argmax after every position of `tokens`; from `stepFrom` on, decoded one token a batch
   * (teacher forcing); `coldExperts`: the expert cache is emptied first.
   */
  greedyPositions(ctx: NativeContext, tokens: Int32Array, stepFrom?: number, coldExperts?: boolean): Int32Array;
}

export interface NativeVulkanDevice {
  index: number;
  name: string;
  type: 'discrete' | 'integrated' | 'virtual' | 'cpu' | 'other';
  apiVersion: string;
  vendorId: number;
  deviceId: number;
  memoryTotal: number;
  memoryFree: number;
  /** The driver reports a budget (VK_EXT_memory_budget); else free is the heap's size. */
  memoryBudget: boolean;
}

export interface NativeBufferMemory {
  buffer: string;
  /** The ggml device the buffer type belongs to (null for a plain host buffer type). */
  device: string | null;
  host: boolean;
  model: number;
  context: number;
  compute: number;
}

/** One speculative pass: tokens the draft proposed, how many the target kept, and the time of each half. */
export interface NativeDraftPass {
  drafted: number;
  accepted: number;
  draftMs: number;
  verifyMs: number;
}

export function addonPath(): string {
  return join(packageRoot(), 'native', 'build', 'Release', 'ramforge.node');
}

let cached: NativeAddon | undefined;

export function loadAddon(): NativeAddon {
  if (cached) return cached;
  const p = addonPath();
  if (!existsSync(p)) {
    throw new Error(`the native addon is not built (${p} is missing): run 'npm run build:native' (or 'npm start', which builds what is missing)`);
  }
  // ggml would try to attach gdb on an abort; we want a plain, fast death of the worker.
  process.env.GGML_NO_BACKTRACE ??= '1';
  const require = createRequire(import.meta.url);
  cached = require(p) as NativeAddon;
  return cached;
}
