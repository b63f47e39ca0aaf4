// The one report builder for a finished run (CLI run and bench, the app): fills in the tool
// identity and hands the run's own results to the pure builder.
import type { OpenedModel } from './gguf-file.js';
import { runExitCode, type RunOnceResult } from '../shared/run-result.js';
import { buildRunReport as build, type WorkerResidency } from '../shared/report/build-report.js';
import type { RunReport } from '../shared/report/report-types.js';
import { summaryFromView } from '../shared/report/model-summary.js';
import type { MemoryPlan } from '../shared/plan/plan-types.js';
import type { GenerateParams, LoadParams } from '../shared/worker-protocol.js';
import { LLAMA_CPP_TAG, RAMFORGE_VERSION } from '../shared/version.js';

export interface RunReportArgs {
  modelPath: string;
  opened: OpenedModel;
  plan: MemoryPlan | null;
  load: LoadParams;
  generate: GenerateParams;
  result: RunOnceResult;
}

export function buildRunReport(a: RunReportArgs): RunReport {
  const r = a.result;
  return build({
    createdAt: r.startedAt,
    tool: { version: RAMFORGE_VERSION, llamaCpp: LLAMA_CPP_TAG },
    modelPath: a.modelPath,
    summary: summaryFromView(a.opened.view),
    shards: a.opened.shards.map((s) => s.path),
    plan: a.plan,
    load: a.load,
    generate: a.generate,
    model: r.model,
    generation: r.generation as (typeof r.generation & { residency?: WorkerResidency }) | null,
    error: r.error,
    workerExit: r.workerExit,
    capped: r.capped,
    coldStart: r.coldStart,
    samples: r.samples,
    exitCode: runExitCode(r),
    agreement: r.agreement ?? null,
  });
}
