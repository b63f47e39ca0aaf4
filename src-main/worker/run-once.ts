// One complete engine run — start the worker (capped or not), cold-start the file cache, load,
// generate, collect samples, close — with every way it can end captured as data, never thrown.
// `ramforge run`, `ramforge bench` and the report builder share it.
import type { SupervisedOutcome, UsageSample } from '../supervisor/index.js';
import { startWorker } from './start-worker.js';
import type { RunOnceResult } from '../shared/run-result.js';

export type { RunOnceResult } from '../shared/run-result.js';
export { runExitCode, runFailureMessage } from '../shared/run-result.js';
import type { ResidencySample } from '../shared/residency-types.js';
import type { GenerateParams, LoadParams, ModelInfo, TokenEvent } from '../shared/worker-protocol.js';

export interface RunOnceOptions {
  files: string[];
  load: LoadParams;
  generate: GenerateParams;
  cap?: { limitBytes: number; timeoutS: number | null };
  /** Drop the model files' clean page cache first, so the run pays for what it reads. */
  coldStart?: boolean;
  onProgress?: (fraction: number) => void;
  /** The model is loaded; the prompt is decoded next. */
  onLoaded?: (model: ModelInfo) => void;
  onToken?: (t: TokenEvent) => void;
  onSample?: (s: ResidencySample) => void;
  onCgroupSample?: (s: UsageSample) => void;
  /** The GPU's variables for the worker (PreparedLoad.gpu.env): it starts with that device visible. */
  gpuEnv?: Readonly<Record<string, string>>;
  /**
   * After the generation, feed the model these tokens (another run's prompt and continuation)
   * and count where its greedy choice is the continuation's next token (a lossy run against the
   * lossless one). Samples taken meanwhile are dropped: the report is the generation's.
   */
  teacherForce?: { prompt: number[]; continuation: number[] };
  /** Called once the worker is up: lets a caller cancel or kill it. */
  onStarted?: (ctl: { cancel(): void; kill(reason: string): void }) => void;
}

export async function runOnce(o: RunOnceOptions): Promise<RunOnceResult> {
  const t0 = performance.now();
  const samples: ResidencySample[] = [];
  const cgroupSamples: UsageSample[] = [];
  const result: RunOnceResult = {
    model: null,
    generation: null,
    error: null,
    workerExit: null,
    capped: null,
    coldStart: null,
    samples,
    cgroupSamples,
    startedAt: new Date().toISOString(),
    wallMs: 0,
    startToFirstTokenMs: null,
  };
  let proc: Awaited<ReturnType<typeof startWorker>>;
  try {
    proc = await startWorker({
    cap: o.cap,
    ...(o.gpuEnv ? { env: { ...o.gpuEnv }, gpu: true } : {}),
    ...(o.coldStart ? { coldStart: o.files } : {}),
    onSample: (s) => {
      samples.push(s);
      o.onSample?.(s);
    },
    onCgroupSample: (s) => {
      cgroupSamples.push(s);
      o.onCgroupSample?.(s);
    },
    });
  } catch (e) {
    // Ended before it was ready: under a cap the supervisor's verdict decides the exit code.
    const err = e as { code?: string; message?: string; capped?: SupervisedOutcome | null };
    result.error = { code: err.code ?? 'ERROR', message: err.message ?? String(e) };
    result.capped = err.capped ?? null;
    result.wallMs = performance.now() - t0;
    return result;
  }
  result.coldStart = proc.coldStart;
  o.onStarted?.({ cancel: () => proc.host.cancel(), kill: (r) => proc.kill(r) });
  try {
    result.model = await proc.host.load(o.load, o.onProgress);
    o.onLoaded?.(result.model);
    result.generation = await proc.host.generate(o.generate, (t) => {
      if (result.startToFirstTokenMs === null) result.startToFirstTokenMs = performance.now() - t0;
      o.onToken?.(t);
    });
    if (o.teacherForce) {
      const kept = [samples.length, cgroupSamples.length] as const;
      result.agreement = await proc.host.agreement(o.teacherForce.prompt, o.teacherForce.continuation);
      samples.length = kept[0];
      cgroupSamples.length = kept[1];
    }
  } catch (e) {
    const err = e as { code?: string; message?: string };
    result.error = { code: err.code ?? 'ERROR', message: err.message ?? String(e) };
  }
  result.workerExit = await proc.host.close();
  if (proc.capped) result.capped = await proc.capped;
  result.wallMs = performance.now() - t0;
  return result;
}
