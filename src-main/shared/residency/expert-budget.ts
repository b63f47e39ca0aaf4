// The runtime's split of the cap for a mixture of experts under the stream policy (pure): the
// dense part of every layer (attention, norms, routers, shared experts) is held first, the
// expert cache takes what is left in whole experts per layer, and a staging buffer of one
// layer's experts serves a micro-batch (a prompt) that routes to more experts than the cache
// holds. The planner's expert cache (plan/plan-moe.ts) is the same split on estimates; this
// one runs on what the worker measured after load.
import { budgetStream, type StreamBudget, type WeightLayer } from '../plan/stream-select.js';

/** An expert tensor: ffn_{gate,up,down,gate_up}_exps, their biases and scales. */
export const EXPERT_TENSOR = /^blk\.(\d+)\.ffn_(gate|up|down|gate_up)_exps\.(weight|bias|scale)$/;

export function isExpertTensor(name: string): boolean {
  return EXPERT_TENSOR.test(name);
}

export interface ExpertBudgetInput {
  readonly capBytes: number;
  readonly nonWeightBytes: number;
  readonly persistentResidentBytes: number;
  /** Each layer's weights without its expert tensors. */
  readonly denseLayers: readonly WeightLayer[];
  /** Bytes of each MoE layer's expert tensors together. */
  readonly expertLayerBytes: readonly number[];
  readonly experts: number;
  /** Experts a token is routed to (the cache holds at least this many per layer). */
  readonly expertsUsed: number;
  readonly prefetchDepth: number;
  readonly readaheadBytes: number;
}

export interface ExpertBudget {
  /** Experts each MoE layer's cache holds (all of them: nothing streams). */
  readonly slotsPerLayer: number;
  readonly cacheBytes: number;
  /** One layer's every expert, when the cache holds fewer than all (else 0). */
  readonly stagingBytes: number;
  /** The dense part's own schedule under what the experts leave of the cap. */
  readonly dense: StreamBudget;
}

export function budgetExperts(i: ExpertBudgetInput): ExpertBudget {
  const perSlot = i.expertLayerBytes.reduce((s, b) => s + b / i.experts, 0);
  const staging = Math.max(0, ...i.expertLayerBytes);
  const dense = (slots: number) =>
    budgetStream({
      capBytes: i.capBytes - Math.ceil(slots * perSlot) - (slots < i.experts ? staging : 0),
      nonWeightBytes: i.nonWeightBytes,
      persistentResidentBytes: i.persistentResidentBytes,
      layers: i.denseLayers,
      prefetchDepth: i.prefetchDepth,
      readaheadBytes: i.readaheadBytes,
    });
  const least = Math.max(1, Math.min(i.experts, i.expertsUsed));
  // The most experts per layer beside a dense part held whole; else the least, and the dense
  // part streams what does not fit beside them.
  let slots = least;
  let b = dense(least);
  for (let k = i.experts; k >= least; k--) {
    const d = dense(k);
    if (d.verdict === 'fits') {
      slots = k;
      b = d;
      break;
    }
  }
  return { slotsPerLayer: slots, cacheBytes: Math.ceil(slots * perSlot), stagingBytes: slots < i.experts ? staging : 0, dense: b };
}
