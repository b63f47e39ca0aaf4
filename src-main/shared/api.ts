// The one API the renderer sees. Electron exposes it through the preload (contextBridge);
// browser mode implements it over a local WebSocket. Every method's arguments and results
// are plain JSON.
import type { RunSettings } from './settings/run-settings.js';
import type {
  ChatMessage,
  GenerationResult,
  ModelInfo,
  PolicyName,
  SamplingParams,
  TokenEvent,
  WorkerExit,
} from './worker-protocol.js';
import type { ResidencySample } from './residency-types.js';
import type { ServerStats } from './server-stats.js';
import type { ApiServerOptions, ApiServerState } from './api-server-state.js';
import type { RecoveryReport } from './recovery.js';

export type { ApiServerOptions, ApiServerState } from './api-server-state.js';
export type { RecoveryReport } from './recovery.js';

export interface ModelRef {
  /** Absolute path on the machine running main (Electron) or the server (browser mode). */
  path: string;
  name: string;
  sizeBytes: number;
}

export type { RunSettings } from './settings/run-settings.js';
export { DEFAULT_RUN_SETTINGS } from './settings/run-settings.js';

/**
 * How a conversation talks to the model. 'chat': turns rendered with the model's chat template.
 * 'completion': raw text continuation, no template (base models): the user's messages and the
 * model's replies are one running text, each reply continuing everything before it.
 */
export type ChatMode = 'chat' | 'completion';

export interface ConversationMessage extends ChatMessage {
  stats?: { ttftMs: number; decodeTokS: number; tokens: number };
  /** On disk only while the reply is being written (saved as it streams, at most a second behind). */
  streaming?: boolean;
  /** The reply was cut off (the process or its worker died): its text is what was saved of it. */
  interrupted?: boolean;
}

export interface Conversation {
  id: string;
  title: string;
  modelPath: string;
  system: string;
  messages: ConversationMessage[];
  updatedAt: string;
  /** Absent: not chosen yet (completion when the loaded model has no chat template, else chat). */
  mode?: ChatMode;
  /** The mode was chosen from the model (no chat template), not by the user. */
  modeAuto?: boolean;
}

export interface EngineState {
  status: 'idle' | 'loading' | 'ready' | 'generating' | 'crashed';
  model: ModelInfo | null;
  settings: RunSettings | null;
  lastExit: WorkerExit | null;
  message: string | null;
}

/** Events pushed from main to the renderer. */
export type ApiEvent =
  | { type: 'state'; state: EngineState }
  | { type: 'load-progress'; fraction: number }
  | { type: 'token'; requestId: string; token: TokenEvent }
  | { type: 'generation-done'; requestId: string; result: GenerationResult; reportId: string | null }
  | { type: 'generation-error'; requestId: string; message: string }
  | { type: 'sample'; sample: ResidencySample }
  | { type: 'cgroup-sample'; tMs: number; usageBytes: number; limitBytes: number }
  /** A folder model discovery watches changed: call discoverModels again. */
  | { type: 'models-changed' }
  | { type: 'pull-progress'; url: string; file: string; done: number; total: number | null; rate: number | null }
  /** The OpenAI-compatible API server's load (see ServerStats). */
  | { type: 'server-stats'; stats: ServerStats };

export interface RamforgeApi {
  /** Models known to the app: the demo model, recently opened ones. */
  listModels(): Promise<ModelRef[]>;
  /** Parse a GGUF header (hardened reader) and build the inspection view. Throws with the reader's message on bad files. */
  inspect(path: string): Promise<unknown>;
  /** Inspect bytes of a dropped file (browser mode has no path): the first bytes of the file plus its size. */
  inspectUpload(name: string, size: number, head: Uint8Array): Promise<unknown>;
  /** `path` may also be an http(s) URL: the plan is made from its header alone (range requests). */
  plan(path: string, settings: RunSettings): Promise<unknown>;
  /** GGUF models found where Ollama, LM Studio, Hugging Face, llama.cpp keep them and in added folders (`ramforge models --json` plus `folders`), planned for `ramBytes` (this machine's RAM when null). */
  discoverModels(ramBytes: number | null): Promise<unknown>;
  /** The GPUs a load can offload to (`ramforge devices --json`: shared/gpu/device-list.ts GpuList). */
  listDevices(): Promise<unknown>;
  /** Replaces the folders discovery also searches; resolves to the list kept. */
  setModelFolders(paths: string[]): Promise<string[]>;
  /** Downloads a model URL into RAMforge's models folder (`ramforge pull --json`; progress as pull-progress events); resolves when it is complete. */
  pullModel(url: string, ramBytes: number | null): Promise<unknown>;
  /** Stops a download; the .part stays, and pulling the URL again resumes it. */
  cancelPull(url: string): Promise<void>;
  load(path: string, settings: RunSettings): Promise<ModelInfo>;
  unload(): Promise<void>;
  /**
   * Starts a reply; tokens and the end arrive as events. With `conversation` (the one shown, the
   * user's message last), the host keeps it: saved before this resolves, the reply saved as it
   * streams, and the finished turn saved before generation-done is sent.
   */
  generate(requestId: string, messages: ChatMessage[], sampling: SamplingParams, maxTokens: number, conversation?: Conversation): Promise<void>;
  /** Continues raw text, no chat template (completion mode, base models); tokens, the end and `conversation` as for generate. */
  complete(requestId: string, text: string, sampling: SamplingParams, maxTokens: number, conversation?: Conversation): Promise<void>;
  stop(): Promise<void>;
  /** Kill the worker as a crash would (for the user's "force stop" and for tests). */
  killWorker(): Promise<void>;
  /** After a crash: start a fresh worker and, when one was loaded, reload the last model with its settings. */
  restart(): Promise<EngineState>;
  /**
   * Run one prompt under each policy in turn (fresh load per policy, greedy sampling) and
   * return one schema-v1 report per run, in order. Token/sample events stream as usual with
   * requestId `${requestId}:${policy}`.
   */
  comparePolicies(requestId: string, path: string, settings: RunSettings, policies: PolicyName[], prompt: string, maxTokens: number): Promise<unknown[]>;
  getState(): Promise<EngineState>;
  listConversations(): Promise<Conversation[]>;
  saveConversation(c: Conversation): Promise<void>;
  /** The JSON report of the last finished generation (schema_version 1), also after a restart. */
  lastReport(): Promise<unknown | null>;
  /** What this start recovered after a crash, once (the first caller gets it, later ones null); null when nothing was left behind. */
  takeRecoveryNotice(): Promise<RecoveryReport | null>;
  /** The OpenAI-compatible API server: on or off, where it listens, whether it needs a key. */
  getApiServer(): Promise<ApiServerState>;
  /** Turns the API server on or off (kept with the app's settings); resolves once it listens or failed to (`error`). */
  setApiServer(opts: ApiServerOptions): Promise<ApiServerState>;
  onEvent(listener: (e: ApiEvent) => void): () => void;
}

// added by renderer: methods the UI needs beyond the contract above.
export interface RamforgeApiRendererExtras {
  /** Save a report JSON (Electron: save dialog). Resolves to the saved path, or null when cancelled. */
  exportReport(report: unknown): Promise<string | null>;
  /** Electron only (preload, `webUtils.getPathForFile`): the local path of a dropped/picked File; null when unknown. */
  pathForFile?(file: Blob): string | null;
}
// added by renderer
export interface RamforgeApi extends RamforgeApiRendererExtras {}

/**
 * Every RamforgeApi method a host answers — the one list the IPC handler, the WebSocket server,
 * the preload, the browser client and the test fakes are built from. `onEvent` (a subscription)
 * and `pathForFile` (local to the preload) never cross the wire. The check below makes the
 * compiler reject a list that misses or invents a method of the interface.
 */
export const API_METHODS = [
  'listModels',
  'inspect',
  'inspectUpload',
  'plan',
  'discoverModels',
  'listDevices',
  'setModelFolders',
  'pullModel',
  'cancelPull',
  'load',
  'unload',
  'generate',
  'complete',
  'stop',
  'killWorker',
  'restart',
  'comparePolicies',
  'exportReport',
  'getState',
  'listConversations',
  'saveConversation',
  'lastReport',
  'takeRecoveryNotice',
  'getApiServer',
  'setApiServer',
] as const;
export type ApiMethod = (typeof API_METHODS)[number];

/** Methods of RamforgeApi that each side provides itself instead of calling the host. */
export type LocalApiMethod = 'onEvent' | 'pathForFile';

/** `true` when the names L are exactly the interface's called methods, else `false`. */
export type MatchesApi<L> = [L] extends [Exclude<keyof RamforgeApi, LocalApiMethod>] ? ([Exclude<keyof RamforgeApi, LocalApiMethod>] extends [L] ? true : false) : false;
// Fails to compile (true is not assignable to false) when API_METHODS and RamforgeApi disagree.
const methodsMatchInterface: MatchesApi<ApiMethod> = true;
void methodsMatchInterface;

/** What a host implements (AppService): every called method plus the event subscription. */
export type RamforgeHostApi = Pick<RamforgeApi, ApiMethod | 'onEvent'>;

export function isApiMethod(name: unknown): name is ApiMethod {
  return typeof name === 'string' && (API_METHODS as readonly string[]).includes(name);
}

/**
 * An object with one forwarding function per API method: `send(method, params)` carries the
 * call to the host (IPC invoke, a WebSocket frame). Sides that must change an argument or
 * answer locally override single entries.
 */
export function forwardingApi(send: (method: ApiMethod, params: unknown[]) => Promise<unknown>): Pick<RamforgeApi, ApiMethod> {
  const out: Record<string, (...params: unknown[]) => Promise<unknown>> = {};
  for (const m of API_METHODS) out[m] = (...params: unknown[]) => send(m, params);
  return out as unknown as Pick<RamforgeApi, ApiMethod>;
}

/** Electron IPC channels between the preload and main (the only two the preload uses). */
export const IPC_CALL_CHANNEL = 'ramforge:call';
export const IPC_EVENT_CHANNEL = 'ramforge:event';
