// The part of the inference worker host (src-main/worker/host.ts, `WorkerHost`) the app uses.
// A seam so the service is tested with a fake worker and Electron can pass its own spawner.
import type { ChatPromptParams, ChatPromptResult, EmbedInput, EmbedPooling, EmbedResult, GenerateParams, GenerationResult, LoadParams, ModelInfo, ServeStep, TokenEvent, WorkerExit, TokenizeResult } from '../shared/worker-protocol.js';
import type { ResidencySample } from '../shared/residency-types.js';
import type { CgroupReport, UsageSample } from '../shared/cgroup/report.js';

export interface HostLike {
  load(params: LoadParams, onProgress?: (fraction: number) => void): Promise<ModelInfo>;
  /** With a model loaded with parallel > 1, several may run at once; `signal` cancels this one alone. */
  generate(params: GenerateParams, onToken: (t: TokenEvent) => void, signal?: AbortSignal): Promise<GenerationResult>;
  /** Embeddings of each text (the real worker has it; fakes may not). */
  embed?(texts: EmbedInput[], truncate?: boolean, pooling?: EmbedPooling): Promise<EmbedResult>;
  /** The loaded vocabulary's ids of a text, and the text of ids (the real worker has them; fakes may not). */
  tokenize?(text: string, addSpecial: boolean, parseSpecial: boolean): Promise<TokenizeResult>;
  detokenize?(tokens: number[], special?: boolean): Promise<string>;
  /** The prompt text chat turns render to on the loaded model (the real worker has it; fakes may not). */
  applyTemplate?(params: ChatPromptParams): Promise<ChatPromptResult>;
  cancel(): void;
  kill(): void;
  close(): Promise<void>;
  readonly exited: Promise<WorkerExit>;
  /** The enforced cap's figures now (null when not capped). */
  cgroupReport(): CgroupReport | null;
}

export interface HostStartOptions {
  ramBytes?: number;
  enforceRam?: boolean;
  /** The model's files, dropped from the page cache before the worker starts. */
  coldStart?: string[];
  /** The GPU's variables (PreparedAppLoad.gpuEnv): the worker starts with that device visible. */
  gpuEnv?: Record<string, string>;
  onSample: (s: ResidencySample) => void;
  onCgroupSample: (s: UsageSample) => void;
  /** Each weight pass of the batch server (a load with parallel > 1). */
  onServeStep?: (s: ServeStep) => void;
}

export type HostFactory = (opts: HostStartOptions) => Promise<HostLike>;
