// What a finished turn leaves behind, made durable before generation-done acknowledges it: the
// turn's report, built from the turn's own results (app/report.ts) and kept as the last one, and
// the routing a mixture of experts measured. A report that cannot be built or saved is said in
// the engine's message; it never fails the turn.
import type { GenerationResult, LoadParams, ModelInfo } from '../shared/worker-protocol.js';
import type { MemoryPlan } from '../shared/plan/plan-types.js';
import type { ResidencySample } from '../shared/residency-types.js';
import type { CgroupReport } from '../shared/cgroup/report.js';
import type { TurnRecord } from './report.js';
import type { ReportStore } from './report-store.js';
import { recordRunRouting } from '../node/routing-cache.js';

/** The model the service has loaded, as its turns' reports need it. */
export interface LoadedModel {
  path: string;
  params: LoadParams;
  plan: MemoryPlan | null;
  info: ModelInfo;
  loadedAt: number;
}

export interface TurnEnd {
  readonly build: ((t: TurnRecord) => Promise<unknown>) | undefined;
  readonly loaded: LoadedModel | null;
  readonly samples: ResidencySample[];
  readonly cgroup: CgroupReport | null;
  readonly reports: ReportStore;
  readonly turn: Pick<TurnRecord, 'generate' | 'startedAt' | 'wallMs'> & { result: GenerationResult };
  /** What went wrong with the report, as one sentence. */
  readonly problem: (message: string) => void;
}

/** The turn's report (null when none is built) once it and the routing are on disk. */
export async function keepTurnEnd(x: TurnEnd): Promise<unknown | null> {
  const report = await buildReport(x);
  if (report !== null) await x.reports.keepLast(report).catch((e: unknown) => x.problem(`the run report could not be saved: ${(e as Error).message}`));
  // Routing under --experts-used is not the model's own: it would replace the record (another shape).
  if (x.loaded && x.loaded.params.expertsUsed === undefined) await recordRunRouting(x.loaded.path, x.samples, x.loaded.info.schedule?.expertCache);
  return report;
}

async function buildReport(x: TurnEnd): Promise<unknown | null> {
  if (!x.build || !x.loaded) return null;
  try {
    return await x.build({ ...x.turn, modelPath: x.loaded.path, load: x.loaded.params, plan: x.loaded.plan, model: x.loaded.info, samples: x.samples, cgroup: x.cgroup });
  } catch (e) {
    x.problem(`the run report could not be built: ${(e as Error).message}`);
    return null;
  }
}
