// A fake inference worker for the service tests: streams numbered tokens on a timer, can be
// cancelled or killed like the real one.
import type { GenerateParams, GenerationResult, LoadParams, ModelInfo, TokenEvent, WorkerExit } from '../shared/worker-protocol.js';
import type { HostLike, HostStartOptions } from './host-like.js';
import type { RunSettings } from '../shared/settings/run-settings.js';
import type { MemoryPlan } from '../shared/plan/plan-types.js';
import { toLoadParams } from '../shared/settings/load-params.js';
import type { TurnRecord } from './report.js';

/** Stands in for the turn report (app/report.ts) where the service is tested without a real run. */
export async function fakeReport(t: TurnRecord): Promise<unknown> {
  return { schema_version: 1, policy: t.load.policy ?? null, tokens: [...t.result.tokens] };
}

/**
 * Stands in for `ramforge prepare-load` where the service is tested without model files: the
 * answer a real preparation gives (the same toLoadParams), with the shape taken from a fake
 * plan's input (or small defaults) instead of the shared shape chooser, which needs a header.
 */
export function fakePrepare(plan: unknown = null): (path: string, settings: RunSettings) => Promise<unknown> {
  return async (path, settings) => {
    const p = settings.ramBytes !== null ? (plan as MemoryPlan | null) : null;
    const shape = { ctx: settings.ctx ?? p?.input.ctx ?? 128, batch: settings.batch ?? p?.input.ubatch ?? 32, threads: settings.threads ?? p?.input.threads ?? 1, reasons: [] };
    return { settings, shape, plan: p, load: toLoadParams({ modelPath: path, settings, shape, plan: p }), files: [path] };
  };
}

export class FakeHost implements HostLike {
  readonly exited: Promise<WorkerExit>;
  private resolveExit!: (e: WorkerExit) => void;
  private cancelled = false;
  private alive = true;
  loads: LoadParams[] = [];

  constructor(readonly opts: HostStartOptions, readonly tokenMs = 5) {
    this.exited = new Promise((r) => (this.resolveExit = r));
  }

  async load(params: LoadParams, onProgress?: (f: number) => void): Promise<ModelInfo> {
    this.loads.push(params);
    if (params.modelPath.endsWith('bad.gguf')) throw new Error('bad magic at offset 0');
    onProgress?.(0.5);
    onProgress?.(1);
    return {
      path: params.modelPath, name: 'fake', arch: 'llama', description: '', nParams: 1, sizeBytes: 1, nLayers: 2,
      nCtxTrain: 128, nVocab: 10, nCtx: params.ctx ?? 128, chatTemplate: null, metadata: {}, loadMs: 1, schedule: null,
    };
  }

  generate(params: GenerateParams, onToken: (t: TokenEvent) => void): Promise<GenerationResult> {
    this.cancelled = false;
    return new Promise((resolve, reject) => {
      const tokens: number[] = [];
      const step = (): void => {
        if (!this.alive) return reject(new Error('worker exited'));
        if (this.cancelled || tokens.length >= params.maxTokens) {
          return resolve({
            promptTokens: [1], tokens, text: tokens.map((t) => `t${t} `).join(''), stopReason: this.cancelled ? 'cancelled' : 'max_tokens', reusedTokens: 0,
            timings: { promptMs: 1, ttftMs: 1, decodeMs: 1, promptTokS: 1, decodeTokS: 1, perTokenMs: [] },
          });
        }
        const id = tokens.length;
        tokens.push(id);
        this.opts.onSample({ tMs: id, token: id, phase: 'decode', layerResident: [1, 2], persistentResident: 0, rssBytes: 1, cgroupBytes: null, cgroupLimitBytes: null, limitHits: null, pinnedResident: null, pinnedBytes: null, readBytes: 0, majorFaults: 0, decodeTokS: 1, events: [] });
        onToken({ index: id, tokenId: id, text: `t${id} `, tMs: id });
        setTimeout(step, this.tokenMs);
      };
      setTimeout(step, this.tokenMs);
    });
  }

  cancel(): void {
    this.cancelled = true;
  }

  kill(): void {
    if (!this.alive) return;
    this.alive = false;
    this.resolveExit({ reason: 'killed', code: null, signal: 'SIGKILL', message: 'killed on request' });
  }

  async close(): Promise<void> {
    this.alive = false;
    this.resolveExit({ reason: 'exit', code: 0, signal: null, message: '' });
  }

  /** Figures a capped fake run reports (tests set it). */
  cgroup: import('../shared/cgroup/report.js').CgroupReport | null = null;

  cgroupReport() {
    return this.cgroup;
  }
}

/** Resolves once `pred` holds, polling every 5 ms; rejects after `ms`. */
export function waitUntil(pred: () => boolean, ms = 5000): Promise<void> {
  const t0 = Date.now();
  return new Promise((resolve, reject) => {
    const tick = (): void => {
      if (pred()) return resolve();
      if (Date.now() - t0 > ms) return reject(new Error('timed out waiting'));
      setTimeout(tick, 5);
    };
    tick();
  });
}
