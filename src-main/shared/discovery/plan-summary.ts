// The few figures of a MemoryPlan a model list shows next to each model. Pure.
import type { MemoryPlan } from '../plan/plan-types.js';
import type { PlanSummary } from './types.js';

export function summarizePlan(p: MemoryPlan): PlanSummary {
  const q = p.quantities;
  return {
    verdict: p.verdict,
    reason: p.reason,
    ctx: p.input.ctx,
    ramUsedBytes: q.ramUsedBytes.value,
    minimumRamBytes: q.minimumRamBytes.value,
    fullResidencyRamBytes: q.fullResidencyRamBytes.value,
    bytesReadPerToken: q.bytesReadPerToken.value,
    predictedDecodeTokS: q.predictedDecodeTokS.value,
  };
}
