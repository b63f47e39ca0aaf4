// The host side of the inference worker: starts it (plain fork, or inside a memory cgroup via
// the supervisor), correlates requests and results, streams tokens and samples, and turns the
// worker's end — crash, OOM kill, timeout — into a WorkerExit instead of an exception in the
// caller's process.
import { fork, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../node/paths.js';
import type { ResidencySample } from '../shared/residency-types.js';
import type {
  ChatPromptParams,
  ChatPromptResult,
  DiskProbe,
  EmbedInput,
  EmbedPooling,
  EmbedResult,
  TokenizeResult,
  AgreementResult,
  ServeStep,
  GenerateParams,
  GenerationResult,
  LoadParams,
  ModelInfo,
  TokenEvent,
  WorkerExit,
  WorkerRequest,
} from '../shared/worker-protocol.js';
import { checkWorkerEvent } from '../shared/worker-message-check.js';
import { signalNote } from '../shared/signal-note.js';
import { WorkerError } from './worker-error.js';
import { RemoteStepWatch } from '../shared/remote/step-watch.js';
import { stalledRunText } from '../shared/remote/rpc-endpoint.js';

/** How often the host looks whether a run with layers on RPC nodes is overdue. */
const STEP_WATCH_TICK_MS = 250;

/** How a caller starts the worker process; the default forks plain Node. */
export interface WorkerProcess {
  send(msg: WorkerRequest): void;
  /** Every message as it arrived: unchecked (the host checks it against the protocol). */
  onMessage(fn: (m: unknown) => void): void;
  /** Resolves once, however the process ended. */
  exited: Promise<WorkerExit>;
  /** SIGKILL (the whole group under a cap); `reason` is what the end is reported with. */
  kill(reason?: string): void;
}

export interface WorkerHostOptions {
  /** Extra environment for the worker. */
  env?: NodeJS.ProcessEnv;
  /** Start the process some other way (cgroup supervisor, Electron utilityProcess). */
  spawn?: (script: string, env: NodeJS.ProcessEnv) => Promise<WorkerProcess> | WorkerProcess;
  onSample?: (s: ResidencySample) => void;
  /** Each weight pass of the batch server (parallel > 1). */
  onServeStep?: (s: ServeStep) => void;
}

export function workerScript(): string {
  const p = join(packageRoot(), 'out', 'cli', 'worker.mjs');
  if (!existsSync(p)) throw new Error(`the worker bundle is missing (${p}): run 'npm run build:cli'`);
  return p;
}

export function forkWorker(script: string, env: NodeJS.ProcessEnv): WorkerProcess {
  const child: ChildProcess = fork(script, [], { env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'], serialization: 'advanced' });
  return wrapChild(child);
}

/** Adapts a child process with an IPC channel (forked, or spawned by the supervisor). */
export function wrapChild(child: ChildProcess): WorkerProcess {
  const exited = new Promise<WorkerExit>((resolve) => {
    child.once('exit', (code, signal) => {
      const crashed = signal !== null || (code !== null && code !== 0);
      resolve({
        reason: crashed ? (signal === 'SIGKILL' ? 'killed' : 'crash') : 'exit',
        code,
        signal,
        message: crashed ? `the inference worker ended ${signal ? `with ${signal}${signalNote(signal)}` : `with exit code ${code}`}` : 'the inference worker exited',
      });
    });
  });
  // A worker killed from outside is still `connected` until its exit is processed: a send in
  // that window fails with EPIPE. Without a callback (or an 'error' listener) that failure would
  // be thrown in the host's process; the exit is what tells the caller. A worker that could not
  // be started at all has no exit to wait for: that error is its end.
  const neverStarted = new Promise<WorkerExit>((resolve) =>
    child.on('error', (e) => {
      if (child.pid === undefined) resolve({ reason: 'crash', code: null, signal: null, message: `the inference worker could not be started: ${e.message}` });
    }),
  );
  return {
    send: (msg) => {
      if (child.connected) child.send(msg, () => undefined);
    },
    onMessage: (fn) => child.on('message', (m: unknown) => fn(m)),
    exited: Promise.race([exited, neverStarted]),
    kill: () => child.kill('SIGKILL'),
  };
}

// Omit over a union must distribute, or only the members' common keys survive.
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
type IdRequest = DistributiveOmit<Exclude<WorkerRequest, { type: 'cancel' } | { type: 'shutdown' }>, 'id'>;

interface Pending {
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  onToken?: (t: TokenEvent) => void;
  onProgress?: (f: number) => void;
}

export class WorkerHost extends EventEmitter {
  private nextId = 1;
  private pending = new Map<number, Pending>();
  private ended: WorkerExit | null = null;
  readonly exited: Promise<WorkerExit>;
  pid = 0;
  /** A load with layers on RPC nodes: its nodes and the watch on its steps. */
  private remote: { endpoints: string[]; watch: RemoteStepWatch; timer: NodeJS.Timeout } | null = null;
  /** Why the host itself stopped the worker. */
  private stopReason: string | null = null;

  private constructor(
    private proc: WorkerProcess,
    private opts: WorkerHostOptions,
  ) {
    super();
    proc.onMessage((e) => this.onEvent(e));
    this.exited = proc.exited.then((ended) => {
      if (this.remote) clearInterval(this.remote.timer);
      // A worker the host stopped ends with SIGKILL; the reason it was stopped is what it says.
      const x = this.stopReason && ended.reason !== 'oom' && !ended.message.includes(this.stopReason) ? { ...ended, message: `stopped: ${this.stopReason} (${ended.message})` } : ended;
      this.ended = x;
      for (const p of this.pending.values()) p.reject(new WorkerError('WORKER_EXITED', x.message));
      this.pending.clear();
      this.emit('exit', x);
      return x;
    });
  }

  static async start(opts: WorkerHostOptions = {}): Promise<WorkerHost> {
    // OpenMP's threads otherwise spin between the many short graph pieces a streamed decode is
    // cut into, taking the CPU the I/O threads and the other compute thread need (measured: a
    // third slower on 2 cores). A user's own OMP_WAIT_POLICY is kept.
    const env = { ...process.env, GGML_NO_BACKTRACE: '1', OMP_WAIT_POLICY: process.env.OMP_WAIT_POLICY ?? 'passive', ...opts.env };
    const script = workerScript();
    const proc = await (opts.spawn ? opts.spawn(script, env) : forkWorker(script, env));
    const host = new WorkerHost(proc, opts);
    await new Promise<void>((resolve, reject) => {
      host.once('ready', () => resolve());
      void host.exited.then((x) => reject(new WorkerError('WORKER_EXITED', `the inference worker did not start: ${x.message}`)));
    });
    return host;
  }

  /** Messages from the worker that broke the protocol and were dropped. */
  droppedMessages = 0;

  private onEvent(m: unknown): void {
    // This runs in the main process's listener: a malformed message is dropped and reported
    // ('bad-message', else stderr for the first few), never thrown.
    const checked = checkWorkerEvent(m);
    if (!checked.ok) {
      this.droppedMessages++;
      const p = checked.resultId === undefined ? undefined : this.pending.get(checked.resultId);
      if (p) {
        this.pending.delete(checked.resultId as number);
        p.reject(new WorkerError('BAD_MESSAGE', `the inference worker answered with a malformed result: ${checked.reason}`));
      }
      if (this.listenerCount('bad-message') > 0) this.emit('bad-message', checked.reason);
      else if (this.droppedMessages <= 10) process.stderr.write(`ramforge: dropped a malformed message from the inference worker: ${checked.reason}\n`);
      return;
    }
    const e = checked.event;
    switch (e.type) {
      case 'ready':
        this.pid = e.pid;
        this.emit('ready');
        return;
      case 'progress':
        this.pending.get(e.id)?.onProgress?.(e.fraction);
        return;
      case 'token':
        this.remote?.watch.token(e.id, performance.now());
        this.pending.get(e.id)?.onToken?.(e.token);
        return;
      case 'sample':
        this.remote?.watch.sample(e.sample as ResidencySample, performance.now());
        this.opts.onSample?.(e.sample as ResidencySample);
        this.emit('sample', e.sample);
        return;
      case 'serve-step':
        this.opts.onServeStep?.(e.step);
        return;
      case 'result': {
        this.remote?.watch.end(e.id);
        const p = this.pending.get(e.id);
        if (!p) return;
        this.pending.delete(e.id);
        if (e.ok) p.resolve(e.value);
        else p.reject(new WorkerError(e.error.code, e.error.message));
      }
    }
  }

  private request<T>(req: IdRequest, extra: Partial<Pending> = {}): Promise<T> {
    if (this.ended) return Promise.reject(new WorkerError('WORKER_EXITED', this.ended.message));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, ...extra });
      this.proc.send({ ...req, id } as WorkerRequest);
    });
  }

  load(params: LoadParams, onProgress?: (fraction: number) => void): Promise<ModelInfo> {
    const endpoints = params.offload?.rpcServers ?? [];
    if (endpoints.length > 0 && !this.remote) {
      const watch = new RemoteStepWatch(performance.now());
      const timer = setInterval(() => {
        const o = watch.overdue(performance.now());
        if (o && !this.stopReason) this.stop(stalledRunText(o, endpoints));
      }, STEP_WATCH_TICK_MS).unref();
      this.remote = { endpoints, watch, timer };
    }
    return this.request<ModelInfo>({ type: 'load', params }, { onProgress });
  }

  /**
   * One generation. With a loaded `parallel` > 1 several run at once; `signal` cancels this one
   * alone (a client that went away).
   */
  generate(params: GenerateParams, onToken: (t: TokenEvent) => void, signal?: AbortSignal): Promise<GenerationResult> {
    const id = this.nextId;
    if (!this.ended) this.remote?.watch.begin(id, performance.now());
    const p = this.request<GenerationResult>({ type: 'generate', params }, { onToken });
    if (signal) {
      const abort = () => {
        if (!this.ended) this.proc.send({ type: 'cancel', target: id });
      };
      if (signal.aborted) abort();
      else {
        signal.addEventListener('abort', abort, { once: true });
        void p.finally(() => signal.removeEventListener('abort', abort)).catch(() => undefined);
      }
    }
    return p;
  }

  /** Embeddings of each text on the loaded model (one after another, after what runs before them). */
  tokenize(text: string, addSpecial: boolean, parseSpecial: boolean): Promise<TokenizeResult> {
    return this.request<TokenizeResult>({ type: 'tokenize', text, addSpecial, parseSpecial });
  }

  /** Teacher-forced agreement with another run's continuation (AgreementResult). */
  agreement(prompt: number[], continuation: number[]): Promise<AgreementResult> {
    return this.request<AgreementResult>({ type: 'agreement', prompt, continuation });
  }

  /** The prompt text the model's chat template makes of these turns (llama-server's /apply-template). */
  applyTemplate(params: ChatPromptParams): Promise<ChatPromptResult> {
    return this.request<ChatPromptResult>({ type: 'apply-template', params });
  }

  async detokenize(tokens: number[], special = false): Promise<string> {
    return (await this.request<{ text: string }>({ type: 'detokenize', tokens, ...(special ? { special } : {}) })).text;
  }

  embed(texts: EmbedInput[], truncate = false, pooling: EmbedPooling = 'mean'): Promise<EmbedResult> {
    return this.request<EmbedResult>({ type: 'embed', texts, ...(truncate ? { truncate } : {}), ...(pooling !== 'mean' ? { pooling } : {}) });
  }

  /** Measures the read speed of the device holding `path` (native, direct I/O). */
  probeDisk(path: string, bytes: number, offset = 0, how: { chunkBytes?: number; threads?: number; scatter?: boolean } = {}): Promise<DiskProbe> {
    return this.request<DiskProbe>({ type: 'probe-disk', path, bytes, offset, ...how });
  }

  cancel(): void {
    if (!this.ended) this.proc.send({ type: 'cancel' });
  }

  kill(): void {
    this.proc.kill();
  }

  /** Kills the worker, its end reported with this reason (a run that stopped moving). */
  stop(reason: string): void {
    this.stopReason = reason;
    this.proc.kill(reason);
  }

  isAlive(): boolean {
    return this.ended === null;
  }

  async close(timeoutMs = 5000): Promise<WorkerExit> {
    if (!this.ended) {
      this.proc.send({ type: 'shutdown' });
      const timer = setTimeout(() => this.proc.kill(), timeoutMs);
      const x = await this.exited;
      clearTimeout(timer);
      return x;
    }
    return this.ended;
  }
}
