// The I/O edge of reports: fills in the tool identity and writes the JSON atomically.
import { renameSync, writeFileSync } from 'node:fs';
import type { OpenedModel } from './gguf-file.js';
import type { RunOnceResult } from './run-once.js';
import { runExitCode } from './run-once.js';
import { buildRunReport as build, type WorkerResidency } from '../shared/report/build-report.js';
import type { RunReport } from '../shared/report/report-types.js';
import type { MemoryPlan } from '../shared/plan/plan-types.js';
import type { GenerateParams, LoadParams } from '../shared/worker-protocol.js';
import { LLAMA_CPP_TAG, RAMFORGE_VERSION } from '../cli/version.js';

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
    view: a.opened.view,
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
  });
}

export function writeReportAtomic(path: string, report: unknown): void {
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, JSON.stringify(report, null, 2) + '\n');
  renameSync(tmp, path);
}
