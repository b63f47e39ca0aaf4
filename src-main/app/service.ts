// The app's API implementation, shared by Electron main (over IPC) and browser mode (over a
// WebSocket): engine state, one inference worker at a time, conversations; the models there are
// (recent, discovered, pulled) are the ModelLibrary's.
// A worker that dies never takes the service with it: the state becomes 'crashed' with the
// reason, and restart() starts a fresh worker.
import { join } from 'node:path';
import type { ApiEvent, Conversation, EngineState, ModelRef, RamforgeHostApi, RecoveryReport, RunSettings } from '../shared/api.js';
import type { GenerateParams, ModelInfo, WorkerExit } from '../shared/worker-protocol.js';
import { comparePolicies, verdictOf } from './compare-policies.js';
import { ConversationStore } from './conversations.js';
import { describeExit, describeExitOnNodes } from './exit-message.js';
import type { HostFactory, HostLike } from './host-like.js';
import { WorkerSlot } from './worker-slot.js';
import { WriteGuard } from './write-guard.js';
import { checkSettings, type PreparedAppLoad } from './settings.js';
import { ModelLibrary } from './model-library.js';
import type { LoadedModel } from './turn-end.js';
import { TurnRunner } from './turn-runner.js';
import { KeptTurn } from './kept-turn.js';
import { ReportStore } from './report-store.js';
import { recoverDataFolder } from './recovery.js';
import { recoveredAnything } from '../shared/recovery.js';
import type { TurnRecord } from './report.js';
import { TurnSamples } from './turn-samples.js';
import { checkMaxTokens, checkMessages, checkSampling, checkString } from './validate.js';
import { isModelUrl } from '../shared/remote/model-url.js';
import type { ApiServerState } from '../shared/api-server-state.js';
import { DEFAULT_MAX_QUEUE, GenerationGate } from '../api/gate.js';
import { Throughput } from '../api/throughput.js';
import { ServerStatsFeed } from '../api/stats-feed.js';
import type { RunningApiServer } from '../api/http-server.js';
import { AppApiBackend } from './api-backend.js';
import { ApiServerControl, type ListenOptions } from './api-control.js';

export interface AppServiceOptions {
  hostFactory: HostFactory;
  /** User data folder (dataRoot() in the app; a temp folder in tests). */
  dataDir: string;
  inspectModel?: (path: string) => Promise<unknown>;
  planModel?: (path: string, settings: RunSettings) => Promise<unknown>;
  /** `ramforge plan --measure-compute` before a comparison that runs stream (the built CLI by default; tests replace it). */
  measureCompute?: (path: string, settings: RunSettings) => Promise<unknown>;
  /** `ramforge prepare-load`'s JSON for a load (the built CLI by default; tests replace it). */
  prepareModel?: (path: string, settings: RunSettings) => Promise<unknown>;
  /** `ramforge devices --json` (the built CLI by default; tests replace it). */
  listDevices?: () => Promise<unknown>;
  /** Paths listed first by listModels (the demo model, a --model given on the command line). */
  pinnedModels?: () => string[];
  /** Builds the schema-v1 report of a finished turn when the worker host does not provide one. */
  buildReport?: (t: TurnRecord) => Promise<unknown>;
  /** Runs `ramforge models` with these arguments (a child process by default; tests replace it). */
  discover?: (args: string[]) => Promise<unknown>;
  /** The CLI entry `pullModel` runs (the package's by default). */
  cliEntry?: string;
  /** API requests that may wait for a sequence before more are refused (429). */
  apiQueue?: number;
}

/** Characters a completion's text may have: more than any context holds, less than a socket message. */
const MAX_COMPLETION_TEXT = 1_000_000;

// `implements`: a method of the API's one list that the service lacks is a compile error.
export class AppService implements RamforgeHostApi {
  private readonly worker: WorkerSlot;
  private readonly writes = new WriteGuard();
  private state: EngineState = { status: 'idle', model: null, settings: null, lastExit: null, message: null };
  private readonly listeners = new Set<(e: ApiEvent) => void>();
  private lastLoad: { path: string; settings: RunSettings } | null = null;
  /** What the current worker was loaded with, for reports. */
  private loaded: LoadedModel | null = null;
  private readonly samples = new TurnSamples();
  /** The worker's sequences, shared by the app's chat and API requests. */
  private gate: GenerationGate;
  private readonly throughput = new Throughput();
  private readonly statsFeed: ServerStatsFeed;
  private readonly apiBackend: AppApiBackend;
  private readonly apiControl: ApiServerControl;
  private readonly reports: ReportStore;
  /** The app's chat turns (turn-runner.ts). */
  private readonly turns: TurnRunner;
  private recovery: RecoveryReport | null = null;
  private readonly conversations: ConversationStore;
  private readonly library: ModelLibrary;

  constructor(private readonly opts: AppServiceOptions) {
    this.worker = new WorkerSlot(opts.hostFactory, (exit) => this.onExit(exit));
    this.statsFeed = new ServerStatsFeed(() => this.gate, this.throughput, (stats) => this.emit({ type: 'server-stats', stats }));
    this.gate = new GenerationGate(1, opts.apiQueue ?? DEFAULT_MAX_QUEUE, () => this.statsFeed.changed());
    this.apiBackend = new AppApiBackend(
      {
        host: () => this.worker.host,
        loaded: () => this.loaded,
        status: () => this.state.status,
        ended: async (h) => ({ ended: await this.worker.diedDuring(h), crashed: this.worker.crashed(h) }),
        readBytes: () => this.samples.readBytes(),
        models: () => this.library.list(),
        settings: () => this.state.settings,
        unload: () => this.unload(),
        load: (path, settings) => this.load(path, settings),
      },
      () => this.gate,
      this.throughput,
    );
    this.apiControl = new ApiServerControl(this.apiBackend, this.statsFeed, join(opts.dataDir, 'api-server.json'));
    this.conversations = new ConversationStore(join(opts.dataDir, 'conversations'));
    this.reports = new ReportStore(join(opts.dataDir, 'reports'));
    this.library = new ModelLibrary({ ...opts, emit: (e) => this.emit(e) });
    this.turns = new TurnRunner({
      worker: this.worker,
      status: () => this.state.status,
      setState: (patch) => this.setState(patch),
      problem: (message) => (this.state = { ...this.state, message }),
      emit: (e) => this.emit(e),
      loaded: () => this.loaded,
      gate: () => this.gate,
      throughput: this.throughput,
      samples: this.samples,
      reports: this.reports,
      ...(opts.buildReport ? { buildReport: opts.buildReport } : {}),
    });
  }

  /**
   * At start, before anything else touches the data folder: repairs what a crash left behind
   * (app/recovery.ts) and keeps the account of it for the app's notice. `otherFiles`: JSON state
   * kept outside the data folder (the routing cache).
   */
  async recover(otherFiles: string[] = []): Promise<RecoveryReport> {
    const r = await recoverDataFolder(this.opts.dataDir, otherFiles);
    this.recovery = recoveredAnything(r) ? r : null;
    return r;
  }

  async takeRecoveryNotice(): Promise<RecoveryReport | null> {
    const r = this.recovery;
    this.recovery = null;
    return r;
  }

  /** Tells paths still being written (browser mode's uploads in progress): those are never loaded. */
  guardWrites(isBeingWritten: (path: string) => boolean): void {
    this.writes.add(isBeingWritten);
  }

  onEvent(listener: (e: ApiEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(e: ApiEvent): void {
    for (const l of this.listeners) {
      try {
        l(e);
      } catch {
        // One broken listener (a closed socket) must not stop the others.
      }
    }
  }

  private setState(patch: Partial<EngineState>): void {
    this.state = { ...this.state, ...patch };
    this.emit({ type: 'state', state: this.getStateSync() });
  }

  getStateSync(): EngineState {
    return { ...this.state };
  }

  async getState(): Promise<EngineState> {
    return this.getStateSync();
  }

  listModels(): Promise<ModelRef[]> {
    return this.library.list();
  }

  inspect(path: unknown): Promise<unknown> {
    return this.library.inspect(path);
  }

  inspectUpload(name: unknown, size: unknown, head: unknown): Promise<unknown> {
    return this.library.inspectUpload(name, size, head);
  }

  plan(path: unknown, settings: unknown): Promise<unknown> {
    return this.library.plan(path, settings);
  }

  discoverModels(ramBytes: unknown): Promise<unknown> {
    return this.library.discover(ramBytes);
  }

  listDevices(): Promise<unknown> {
    return this.library.devices();
  }

  setModelFolders(paths: unknown): Promise<string[]> {
    return this.library.setFolders(paths);
  }

  pullModel(url: unknown, ramBytes: unknown): Promise<unknown> {
    return this.library.pull(url, ramBytes);
  }

  async cancelPull(url: unknown): Promise<void> {
    this.library.cancelPull(url);
  }

  private startHost(s: RunSettings, files: string[], gpuEnv?: Record<string, string>): Promise<HostLike> {
    this.samples.newWorker();
    return this.worker.start({
      ...(gpuEnv ? { gpuEnv } : {}),
      enforceRam: s.enforceRam,
      ...(s.ramBytes !== null ? { ramBytes: s.ramBytes } : {}),
      // As every capped run starts (worker/start-worker.ts): from a cold page cache.
      ...(s.enforceRam ? { coldStart: files } : {}),
      onSample: (sample) => {
        this.samples.add(sample);
        this.emit({ type: 'sample', sample });
      },
      onCgroupSample: (c) => this.emit({ type: 'cgroup-sample', ...c }),
      onServeStep: (s) => this.throughput.pass(s.sequences),
    });
  }

  private onExit(exit: WorkerExit): void {
    const eps = this.loaded?.params.offload?.rpcServers ?? [];
    if (eps.length === 0) return this.reportExit(exit, describeExit(exit));
    void describeExitOnNodes(exit, eps).then((message) => this.reportExit(exit, message));
  }

  private reportExit(exit: WorkerExit, message: string): void {
    this.turns.workerEnded(message);
    this.setState({ status: 'crashed', lastExit: exit, message });
  }

  /** The load in flight, which close() ends and waits for. */
  private loading: Promise<ModelInfo> | null = null;
  /** close() was called: no load starts a worker any more. */
  private closed = false;

  load(path: unknown, settings: unknown): Promise<ModelInfo> {
    const p = this.loadNow(path, settings);
    this.loading = p;
    const clear = (): void => {
      if (this.loading === p) this.loading = null;
    };
    p.then(clear, clear);
    return p;
  }

  private async loadNow(path: unknown, settings: unknown): Promise<ModelInfo> {
    if (this.closed) throw new Error('the app is closing');
    const p = checkString(path, 'path');
    const s = checkSettings(settings);
    if (isModelUrl(p)) throw new Error('a model URL can be planned but not loaded: download it first (ramforge pull URL)');
    if (this.state.status === 'loading' || this.state.status === 'generating') throw new Error(`busy: the engine is ${this.state.status}`);
    if (this.writes.isBeingWritten(p)) throw new Error(`${p} is still being written (an upload or a download in progress): load it once it has arrived whole`);
    this.setState({ status: 'loading', model: null, settings: s, message: null });
    // The load is prepared out of process, by the CLI's own preparation with the hardened
    // reader: the shape, the plan, the load parameters `ramforge run` would use, and the
    // refusals it would make (a bad file, a shape larger than the machine, an enforced cap
    // below the minimum), all before any worker starts.
    let prepared: PreparedAppLoad;
    try {
      prepared = await this.library.prepareLoad(p, s);
    } catch (e) {
      await this.worker.stop();
      this.setState({ status: 'idle', message: (e as Error).message });
      throw e;
    }
    if (this.closed) throw new Error('the app is closing');
    const { params, plan } = prepared;
    let h: HostLike;
    try {
      h = await this.startHost(s, prepared.files, prepared.gpuEnv);
    } catch (e) {
      this.setState({ status: 'idle', message: `cannot start the inference worker: ${(e as Error).message}` });
      throw e;
    }
    this.loaded = null;
    this.samples.newLoad();
    // What restart() repeats: this load, also when the worker dies during it.
    this.lastLoad = { path: p, settings: s };
    try {
      const info = await h.load(params, (fraction) => this.emit({ type: 'load-progress', fraction }));
      this.loaded = { path: p, params, plan, info, loadedAt: Date.now() };
      this.gate.setCapacity(params.parallel ?? 1);
      await this.library.used(p);
      this.setState({ status: 'ready', model: info, message: null });
      return info;
    } catch (e) {
      if (!(await this.worker.diedDuring(h))) {
        await this.worker.stop();
        this.setState({ status: 'idle', message: (e as Error).message });
      }
      throw e;
    }
  }

  async unload(): Promise<void> {
    if (this.state.status === 'generating') throw new Error('busy: stop the generation first');
    await this.worker.stop();
    this.setState({ status: 'idle', model: null, message: null });
  }

  /** Starts a generation; tokens and the end arrive as events. Resolves once it has started. */
  async generate(requestId: unknown, messages: unknown, sampling: unknown, maxTokens: unknown, conversation?: unknown): Promise<void> {
    const id = checkString(requestId, 'requestId', 200);
    return this.startTurn(id, { messages: checkMessages(messages), sampling: checkSampling(sampling), maxTokens: checkMaxTokens(maxTokens) }, conversation);
  }

  /** Continues raw text with no chat template (completion mode); events as for generate. */
  async complete(requestId: unknown, text: unknown, sampling: unknown, maxTokens: unknown, conversation?: unknown): Promise<void> {
    const id = checkString(requestId, 'requestId', 200);
    return this.startTurn(id, { prompt: checkString(text, 'text', MAX_COMPLETION_TEXT), sampling: checkSampling(sampling), maxTokens: checkMaxTokens(maxTokens) }, conversation);
  }

  private async startTurn(id: string, params: GenerateParams, conversation: unknown): Promise<void> {
    // The user's message is durable before the generation is accepted.
    const kept = conversation === undefined ? null : await KeptTurn.begin(this.conversations, conversation);
    this.turns.run(id, params, kept).catch(() => {
      // Reported through a generation-error event.
    });
  }

  async stop(): Promise<void> {
    this.turns.abort();
    // With API requests on the worker, only the app's own generation stops (its signal above).
    if (this.apiBackend.running === 0) this.worker.host?.cancel();
  }

  async killWorker(): Promise<void> {
    this.worker.host?.kill();
  }

  async restart(): Promise<EngineState> {
    await this.worker.stop();
    this.turns.forget();
    if (this.lastLoad) {
      this.setState({ status: 'idle', message: null });
      await this.load(this.lastLoad.path, this.lastLoad.settings);
    } else {
      this.setState({ status: 'idle', model: null, message: null });
    }
    return this.getStateSync();
  }

  comparePolicies(requestId: unknown, path: unknown, settings: unknown, policies: unknown, prompt: unknown, maxTokens: unknown): Promise<unknown[]> {
    const verdict = (p: string, s: RunSettings) => this.library.planChecked(p, s).then(verdictOf, () => null);
    const runner = { verdict, measureCompute: (p: string, s: RunSettings) => this.library.measureCompute(p, s), load: (p: string, s: RunSettings) => this.load(p, s), turn: (id: string, g: GenerateParams) => this.turns.run(id, g), lastTurnReport: () => this.turns.knownReport() };
    return comparePolicies(runner, requestId, path, settings, policies, prompt, maxTokens);
  }

  lastReport(): Promise<unknown | null> {
    return this.turns.lastReport();
  }

  getApiServer(): Promise<ApiServerState> {
    return this.apiControl.get();
  }

  /** The app's setting (kept in the data folder): on 127.0.0.1 at `port`. */
  setApiServer(opts: unknown): Promise<ApiServerState> {
    return this.apiControl.set(opts);
  }

  /** At app start: the API server on again if the user left it on. */
  restoreApiServer(): Promise<ApiServerState> {
    return this.apiControl.restore();
  }

  /** `ramforge serve --api`: the API as its flags say (not kept as the app's setting). */
  startApiServer(l: ListenOptions): Promise<RunningApiServer> {
    return this.apiControl.start(l);
  }

  /** Browser mode / CLI host: save into <dataDir>/reports and return the path. */
  exportReport(report: unknown): Promise<string | null> {
    return this.reports.export(report);
  }

  listConversations(): Promise<Conversation[]> {
    return this.conversations.list();
  }

  saveConversation(c: unknown): Promise<void> {
    return this.conversations.save(c as Conversation);
  }

  /** Ends everything, a load in flight included: its worker is killed (it would finish loading first), and the load has settled when this resolves. */
  async close(): Promise<void> {
    this.closed = true;
    const loading = this.loading;
    this.library.close();
    await this.apiControl.close();
    await this.worker.stop(loading !== null);
    await loading?.catch(() => undefined);
    this.listeners.clear();
  }
}
