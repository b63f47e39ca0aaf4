// What a draft model costs in RAM beside its target, from the two GGUF headers (pure): the
// target tensors it can share, its own weights, and its tokenizer, KV cache and buffers.
import type { GgufShard, ModelView } from '../gguf/model-view.js';
import { isArray } from '../gguf/metadata.js';
import { formatBytes } from '../size.js';
import type { DraftPlanInput } from '../plan/plan-types.js';
import { sharedTensorCandidates } from './shared-tensors.js';
import { DEFAULT_KV_ELEMENT_BYTES } from '../settings/run-settings.js';

/**
 * The draft context's batch: it decodes one token at a time, and catches up with the target's
 * tokens (the prompt, passes that drafted nothing) in pieces of this size.
 */
export const DRAFT_CONTEXT_BATCH = 2;

/**
 * A second model and context in the worker, measured beside a 128k-token target (cgroup charge
 * with and without the draft): llama.cpp's tokenizer tables, ≈ 160 B a token and ≈ 128 B a BPE
 * merge (50 MB with 280k merges, 20 MB without), and up to 18 MiB for the model object and the
 * context's graph, scheduler and threads whatever the model's size. The 1b preset's one-layer
 * draft at ctx 256 verifying 9 positions is budgeted 48 MiB and measured 37 MiB at the decode
 * peak (the run's charge with and without it).
 */
const TOKEN_TABLE_BYTES = 160;
const MERGE_TABLE_BYTES = 128;
const CONTEXT_FIXED_BYTES = 18 * 1024 * 1024;

export interface DraftSide {
  readonly path: string;
  readonly shards: readonly GgufShard[];
  readonly view: ModelView;
}

export function draftPlanInput(target: { shards: readonly GgufShard[] }, draft: DraftSide, o: { ctx: number; max: number; kvTypeBytes?: number }): DraftPlanInput {
  const shared = sharedTensorCandidates(target.shards, draft.shards);
  const sharedBytes = shared.reduce((s, c) => s + c.bytes, 0);
  const v = draft.view;
  const kvElem = o.kvTypeBytes ?? DEFAULT_KV_ELEMENT_BYTES;
  const header = draft.shards[0]!.header;
  const count = (key: string): number => {
    const val = header.kvByKey.get(key)?.value;
    return val !== undefined && isArray(val) ? val.items.length : 0;
  };
  const tokens = count('tokenizer.ggml.tokens');
  const merges = count('tokenizer.ggml.merges');
  const nVocab = v.vocabSize ?? tokens;
  const headDim = v.headDim ?? 0;
  const kv = v.layers.reduce((s, l) => s + (v.headCountKvByLayer?.[l.index] ?? v.headCountKv ?? 0) * (headDim + (v.valueDim ?? headDim)) * o.ctx * kvElem, 0);
  const tokenizer = tokens * TOKEN_TABLE_BYTES + merges * MERGE_TABLE_BYTES;
  // Compute buffer and logits of the draft's own batch; the verify passes' logits (max+1
  // positions) and the candidate list sampling makes, on the target's side.
  const buffers = 2 * 4 * DRAFT_CONTEXT_BATCH * nVocab + (o.max + 1) * nVocab * 4 + nVocab * 16 + 2 * 1024 * 1024;
  const overhead = tokenizer + kv + buffers + CONTEXT_FIXED_BYTES;
  const fb = formatBytes;
  return {
    path: draft.path,
    sharedTensors: shared.map((c) => c.name),
    ownWeightBytes: Math.max(0, draft.shards.reduce((s, sh) => s + sh.header.tensorBytes, 0) - sharedBytes),
    overhead: {
      value: overhead,
      formula: `tokenizer ${tokens} tokens × ${TOKEN_TABLE_BYTES} B + ${merges} merges × ${MERGE_TABLE_BYTES} B = ${fb(tokenizer)} + KV of ${v.layers.length} layers × ctx ${o.ctx} = ${fb(kv)} + buffers (draft batch ${DRAFT_CONTEXT_BATCH}, ${o.max + 1} verified positions) ${fb(buffers)} + model and context ${fb(CONTEXT_FIXED_BYTES)} = ${fb(overhead)}`,
    },
    max: o.max,
  };
}
