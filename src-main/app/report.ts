// The schema-v1 report of one chat turn in the app, built with the same builder as
// `ramforge run --report-json` (src-main/node/report-file.ts), from what the service saw.
import { stat } from 'node:fs/promises';
import { openGgufModel, type OpenedModel } from '../node/gguf-file.js';
import { buildRunReport } from '../node/report-file.js';
import type { RunOnceResult } from '../node/run-once.js';
import type { MemoryPlan } from '../shared/plan/plan-types.js';
import type { ResidencySample } from '../shared/residency-types.js';
import type { GenerateParams, GenerationResult, LoadParams, ModelInfo } from '../shared/worker-protocol.js';
import type { CgroupSample } from './host-like.js';

export interface TurnRecord {
  modelPath: string;
  load: LoadParams;
  plan: unknown | null;
  generate: GenerateParams;
  model: ModelInfo;
  result: GenerationResult;
  samples: ResidencySample[];
  cgroupSamples: CgroupSample[];
  startedAt: string;
  wallMs: number;
}

// Every chat turn makes a report of the same model: its header (megabytes for a large vocab)
// is read once per loaded file, not once per turn.
let lastOpened: { path: string; mtimeMs: number; size: number; opened: OpenedModel } | null = null;

async function openCached(path: string): Promise<OpenedModel> {
  const st = await stat(path);
  if (lastOpened && lastOpened.path === path && lastOpened.mtimeMs === st.mtimeMs && lastOpened.size === st.size) return lastOpened.opened;
  const opened = await openGgufModel(path);
  lastOpened = { path, mtimeMs: st.mtimeMs, size: st.size, opened };
  return opened;
}

export async function buildTurnReport(t: TurnRecord): Promise<unknown> {
  // The file already loaded in the worker, so its header passed the hardened reader once.
  const opened = await openCached(t.modelPath);
  const result: RunOnceResult = {
    model: t.model,
    generation: t.result,
    error: null,
    workerExit: null,
    capped: null,
    coldStart: null,
    samples: t.samples,
    cgroupSamples: t.cgroupSamples,
    startedAt: t.startedAt,
    wallMs: t.wallMs,
    startToFirstTokenMs: null,
  };
  return buildRunReport({ modelPath: t.modelPath, opened, plan: (t.plan as MemoryPlan | null) ?? null, load: t.load, generate: t.generate, result });
}
