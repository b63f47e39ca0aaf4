// What the HTTP API needs from whoever owns the worker (the app service): the model it serves
// and a way to run one generation on it. A seam, so the server is tested without a worker.
import type { ChatPromptParams, ChatPromptResult, EmbedInput, EmbedPooling, EmbedResult, GenerateParams, GenerationResult, TokenEvent, TokenizeResult } from '../shared/worker-protocol.js';
import type { ApiError } from './errors.js';
import type { ModelNames } from '../shared/model-names.js';
import type { RamforgeExtras } from './response-shape.js';

export interface ServedModel {
  /** The id GET /v1/models lists and requests name (the file name without .gguf). */
  id: string;
  /** Other names a request's `model` may use for it: the file name, the model's own name. */
  aliases: string[];
  /** Unix seconds: when it was loaded. */
  created: number;
  arch: string;
  hasChatTemplate: boolean;
  /** Tokens of context each sequence has: a request's prompt and answer together. */
  ctxPerSequence: number;
  sequences: number;
  policy: string | null;
  /** What the file says about itself (Ollama's /api/tags and /api/show list it); absent when unknown. */
  facts?: ModelFacts;
  /** The names and tags the user gave it (`serve --alias`, `--tags`); absent: none. */
  names?: ModelNames;
}

export interface ModelFacts {
  sizeBytes: number;
  parameterCount: number;
  /** GGUF general.file_type (llama.cpp's LLAMA_FTYPE), null when the file does not say. */
  fileType: number | null;
  chatTemplate: string | null;
  /** The context the model was trained for. */
  contextLength: number;
  layers: number;
}

export interface BackendRun {
  result: GenerationResult;
  extras: RamforgeExtras;
}

/** A download's progress (Ollama's /api/pull streams it). */
export interface PullProgress {
  /** The file's name as saved. */
  file: string;
  completed: number;
  total: number | null;
}

export interface PulledFile {
  path: string;
  bytes: number;
  sha256: string;
  /** The checksum was checked against one the server publishes. */
  verified: boolean;
  /** It was already there, complete. */
  skipped: boolean;
}

export interface ApiBackend {
  /** The model being served, or the 503 that says why there is none. */
  model(): ServedModel | ApiError;
  /**
   * One generation on the served model: waits for a free sequence (a 429 ApiError when the
   * queue is full), then runs; `signal` ends it early (the client left, a stop string appeared)
   * and it then resolves with what was generated. Failures are ApiErrors (503 model unloaded,
   * 500 worker crashed, 400 prompt too long, …).
   */
  generate(params: GenerateParams, onToken: (t: TokenEvent) => void, signal: AbortSignal): Promise<BackendRun>;
  /**
   * The served model's embedding of each text (mean-pooled, not normalized), taking a turn at
   * the same door as generations. Failures are ApiErrors as for generate.
   */
  embed(texts: EmbedInput[], signal: AbortSignal, truncate?: boolean, pooling?: EmbedPooling): Promise<EmbedResult>;
  /**
   * The path of a model on this machine, other than the served one, that `name` names (its id,
   * file name or path, among the models the app lists), or null. Absent: none is known.
   */
  modelOnDisk?(name: string): Promise<string | null>;
  /** llama-server's /tokenize: the served model's ids of a text, and each id's text. */
  tokenize?(text: string, addSpecial: boolean, parseSpecial: boolean): Promise<TokenizeResult>;
  /**
   * llama-server's /slots: per slot (one of the `sequences` generations that may run at once),
   * whether a generation holds it now.
   */
  slots?(): boolean[];
  /** llama-server's /detokenize; `special`: BOS and the like written as their text (`<s>`). */
  detokenize?(tokens: number[], special?: boolean): Promise<string>;
  /**
   * llama-server's /apply-template: the prompt text the served model's chat template makes of
   * the turns, as a chat generation renders them, and its token count (Anthropic's
   * count_tokens, OpenAI's input_tokens).
   */
  applyTemplate?(params: ChatPromptParams): Promise<ChatPromptResult>;
  /** Ollama's keep_alive 0: unloads the served model once the requests running on it are done. */
  unload?(): Promise<void>;
  /**
   * After such an unload: loads the same model again, with the same settings (the same memory
   * plan and its refusals), for a request that names it or none; resolves whether it did (or
   * another request's reload did). Absent or false: nothing to load.
   */
  loadAgain?(requested: string | null): Promise<boolean>;
  /**
   * Ollama's /api/pull: downloads the GGUF at an http(s) URL (every shard of a split set) into
   * RAMforge's models folder as `ramforge pull` does (resumable, checked against a published
   * sha256). Failures are ApiErrors (400 not a URL, 404 nothing there, 500 interrupted).
   */
  pull?(url: string, onProgress: (p: PullProgress) => void): Promise<PulledFile[]>;
  /** Ollama's /api/delete: removes a model file of RAMforge's models folder (never the loaded one). */
  deleteModel?(name: string): Promise<void>;
  /** Ollama's /api/copy: the model `source` (in the models folder, or the loaded one) copied there as `destination`. */
  copyModel?(source: string, destination: string): Promise<void>;
}
