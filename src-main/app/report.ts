// The schema-v1 report of one chat turn in the app: the same builder as `ramforge run
// --report-json` (src-main/node/report-file.ts's pure core), fed with the turn's own results —
// the worker's generation (with its inventory of what llama.cpp loaded: no GGUF header is parsed
// in the app's main process), the samples, and the enforced cap's figures when there is one.
import { stat } from 'node:fs/promises';
import { buildRunReport, type WorkerResidency } from '../shared/report/build-report.js';
import { summaryFromInventory } from '../shared/report/model-summary.js';
import type { CgroupReport } from '../shared/cgroup/report.js';
import type { MemoryPlan } from '../shared/plan/plan-types.js';
import type { ResidencySample } from '../shared/residency-types.js';
import type { GenerateParams, GenerationResult, LoadParams, ModelInfo } from '../shared/worker-protocol.js';
import { LLAMA_CPP_TAG, RAMFORGE_VERSION } from '../shared/version.js';

export interface TurnRecord {
  modelPath: string;
  load: LoadParams;
  plan: MemoryPlan | null;
  generate: GenerateParams;
  model: ModelInfo;
  result: GenerationResult & { residency?: WorkerResidency };
  samples: ResidencySample[];
  /** The enforced cap's figures at the end of the turn; null when the run is not capped. */
  cgroup: CgroupReport | null;
  startedAt: string;
  wallMs: number;
}

export async function buildTurnReport(t: TurnRecord): Promise<unknown> {
  const inv = t.result.residency?.inventory;
  if (!inv) throw new Error('the worker sent no inventory with the generation');
  const fileBytes = (await stat(t.modelPath)).size;
  return buildRunReport({
    createdAt: t.startedAt,
    tool: { version: RAMFORGE_VERSION, llamaCpp: LLAMA_CPP_TAG },
    modelPath: t.modelPath,
    summary: summaryFromInventory(inv, { name: t.model.name, arch: t.model.arch, nParams: t.model.nParams, fileBytes }),
    shards: [t.modelPath],
    plan: t.plan,
    load: t.load,
    generate: t.generate,
    model: t.model,
    generation: t.result,
    error: null,
    workerExit: null,
    // The worker is still running: the cap held so far, nothing ended.
    capped: t.cgroup
      ? { status: 'ok', exitCode: 0, workerExitCode: null, signal: null, wallMs: Math.round(t.wallMs), message: 'the turn ended; the worker keeps running under the cap', cgroup: t.cgroup }
      : null,
    coldStart: null,
    samples: t.samples,
    exitCode: 0,
  });
}
