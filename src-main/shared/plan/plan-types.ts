// The memory plan: a plain data structure the runtime executes (tiers per layer, prefetch
// depth) and the CLI/UI show. Every number carries the formula that produced it.
import type { RpcNodeInfo } from '../remote/rpc-endpoint.js';
import type { RemotePlan } from './place-remote.js';
import type { TraceRouting } from '../moe/trace-routing.js';
import type { MeasuredCompute } from './measured-compute.js';

export type Tier = 'vram' | 'remote' | 'pinned' | 'streamed';
export type Verdict = 'fits' | 'out-of-core' | 'cannot-run';

export interface Quantity {
  /** null where it cannot be known (never a silent 0). */
  readonly value: number | null;
  /** How the value was computed, in words and symbols, with the inputs filled in. */
  readonly formula: string;
}

export interface PlanInput {
  /** RAM budget in bytes (the cap the run will be held to). */
  readonly ramBytes: number;
  readonly vramBytes?: number;
  /** Context length in tokens. */
  readonly ctx: number;
  readonly diskBandwidthBytesPerS: number;
  /** Where the disk bandwidth came from ('--disk-bw', 'measured (may be optimistic)', ...). */
  readonly diskBandwidthSource?: string;
  /** Bytes per KV-cache element (f16 = 2). */
  readonly kvTypeBytes?: number;
  /** Streamed layers read ahead of the one being computed (default 2). */
  readonly prefetchDepth?: number;
  /** Micro-batch (llama.cpp n_ubatch) the compute buffer is sized for (default min(512, ctx)). */
  readonly ubatch?: number;
  /** Assumed RAM bandwidth for compute-bound estimates (default 20 GB/s). */
  readonly memoryBandwidthBytesPerS?: number;
  /** Assumed VRAM bandwidth (default 300 GB/s). */
  readonly vramBandwidthBytesPerS?: number;
  readonly threads?: number;
  /** What the kernel may read past a streamed range (the device's read-ahead, default 8 MiB). */
  readonly readaheadBytes?: number;
  /** Sequences decoded together, each with a KV cache of `ctx` (default 1). */
  readonly parallel?: number;
  /** The run serves an API: /v1/embeddings makes a context of its own, which the plan budgets. */
  readonly serving?: boolean;
  /** A draft model for speculative decoding: what it holds and which target tensors it reads. */
  readonly draft?: DraftPlanInput;
  /** The GPU the VRAM budget is on (its ggml name, for the plan's text and the load). */
  readonly gpuDevice?: string;
  /** A mixture of experts: the routing earlier runs of this file measured (popularity by rank). */
  readonly routing?: { readonly popularity: readonly number[]; readonly batches: number };
  /** A mixture of experts: a routing trace to be replayed (`--routing-trace`): the cache is predicted by replaying it. */
  readonly routeTrace?: TraceRouting;
  /** The decode time per token this very schedule measured on the model's shadow (measured-compute.ts); absent: modelled from the memory bandwidth. */
  readonly measuredCompute?: MeasuredCompute;
  /** A mixture of experts: the device's rate in reads of one expert's slice, as the expert cache reads its misses (absent: diskBandwidthBytesPerS). */
  readonly expertRead?: { readonly bytesPerS: number; readonly source: string };
  /** A mixture of experts: the share of its cache's reads earlier runs of the file started ahead, on a prediction (absent: none measured). */
  readonly readAheadShare?: number;
  /** llama.cpp RPC nodes (`--rpc`), as they described themselves: they hold the last layers. */
  readonly remote?: readonly RpcNodeInfo[];
}

export interface LayerPlan {
  readonly index: number;
  /** Weight bytes of the layer (sum of its tensors' nbytes). */
  readonly bytes: number;
  /** KV-cache bytes of the layer for the context. */
  readonly kvBytes: number;
  readonly tier: Tier;
  /** Bytes of this layer's weights that stream (the rest is resident). */
  readonly streamedBytes: number;
}

/** What the stream schedule executes when the model does not fit. */
export interface StreamPlan {
  /** The streamed tensors; every other weight is held resident. */
  readonly tensors: string[];
  /** The largest streamed tensor: the unit the window is sized in. */
  readonly unitBytes: number;
  /** Bytes read ahead of use, the unit in use included. */
  readonly windowBytes: number;
  readonly readaheadBytes: number;
  readonly headroomBytes: number;
}

export interface TierSummary {
  readonly layers: number[];
  readonly bytes: number;
}

export interface MemoryPlan {
  readonly schemaVersion: 1;
  readonly model: {
    readonly architecture: string | null;
    readonly name: string | null;
    readonly blockCount: number;
    readonly fileBytes: number;
    readonly tensorBytes: number;
  };
  readonly input: Required<Omit<PlanInput, 'vramBytes' | 'threads' | 'diskBandwidthSource' | 'readaheadBytes' | 'parallel' | 'draft' | 'routing' | 'routeTrace' | 'gpuDevice' | 'remote' | 'measuredCompute' | 'expertRead' | 'readAheadShare'>> & {
    readonly vramBytes: number | null;
    readonly threads: number | null;
    readonly diskBandwidthSource: string;
    readonly parallel: number;
  };
  readonly layers: LayerPlan[];
  readonly tiers: { readonly vram: TierSummary; readonly pinned: TierSummary; readonly streamed: TierSummary; readonly remote?: TierSummary };
  readonly quantities: {
    readonly persistentBytes: Quantity;
    readonly layerBytesTotal: Quantity;
    readonly kvBytesPerLayer: Quantity;
    readonly kvBytesTotal: Quantity;
    readonly kvRamBytes: Quantity;
    readonly computeBufferBytes: Quantity;
    readonly runtimeOverheadBytes: Quantity;
    /** The embeddings context a server makes on its first /v1/embeddings request (0 when not serving). */
    readonly embeddingsBytes: Quantity;
    readonly fixedRamBytes: Quantity;
    readonly pinnedBytes: Quantity;
    readonly streamingReserveBytes: Quantity;
    readonly headroomBytes: Quantity;
    readonly ramUsedBytes: Quantity;
    readonly vramUsedBytes: Quantity;
    readonly bytesReadPerToken: Quantity;
    readonly floorBytesPerToken: Quantity;
    readonly predictedDecodeTokS: Quantity;
    readonly minimumRamBytes: Quantity;
    readonly fullResidencyRamBytes: Quantity;
  };
  readonly stream: StreamPlan | null;
  /** Layers on other machines and what each node holds (absent without `--rpc`). */
  readonly remote?: RemotePlan;
  /** A mixture of experts' expert cache (absent for a dense model: its plan is unchanged). */
  readonly moe?: MoePlan;
  /** The VRAM tier: what goes on the GPU and what it costs there (absent without a VRAM budget). */
  readonly gpu?: GpuPlan;
  /** The draft's share of the budget and what it costs the target (null without a draft). */
  readonly draft: DraftPlan | null;
  readonly verdict: Verdict;
  readonly reason: string;
  readonly notes: string[];
}

export interface DraftPlanInput {
  readonly path: string;
  /** Target tensors whose bytes the draft shares (it reads them through the target's copy). */
  readonly sharedTensors: readonly string[];
  /** Weights the draft holds itself (locked in RAM beside the target). */
  readonly ownWeightBytes: number;
  /** Its tokenizer, KV cache, compute buffers and the verify passes' logits. */
  readonly overhead: Quantity;
  /** Most tokens drafted per pass. */
  readonly max: number;
}

export interface DraftPlan {
  readonly path: string;
  readonly sharedBytes: Quantity;
  readonly ownWeightBytes: Quantity;
  readonly overheadBytes: Quantity;
  /** Target weight bytes no longer held resident because the draft takes their room. */
  readonly residentCostBytes: Quantity;
  /** Each verify pass reads this much more than a pass without the draft. */
  readonly extraReadPerPassBytes: Quantity;
  /** Tokens each verify pass must yield for the draft to pay off (the bytes read grow by this factor). */
  readonly breakEvenTokensPerPass: Quantity;
  /** Whether the draft can pay off at this cap: it fits, and max+1 tokens a pass beat the break-even. */
  readonly pays: boolean;
  readonly reason: string;
}

/** Where the routing statistics behind an expert-cache prediction come from. */
export type RoutingSource = 'trace' | 'measured' | 'synthetic-skew' | 'uniform';

/**
 * The expert cache of a mixture of experts: the dense part (attention, norms, routers, shared
 * experts, embeddings and output head as the dense plan treats them) is locked first, the rest
 * of the budget caches experts. Written for an expert-granular runtime to execute: it names the
 * expert tensors (expert e of one is the slice at data + e × nbytes / expertCount) and sizes the
 * cache in experts per layer.
 */
export interface MoePlan {
  readonly expertCount: number;
  readonly expertUsedCount: number;
  readonly expertSharedCount: number;
  /** Layers that hold experts. */
  readonly layers: number[];
  /** Every expert tensor (3-D, expert-major), in layer order. */
  readonly expertTensors: string[];
  /** Experts each MoE layer's cache holds (all of them when the model fits). */
  readonly cacheExpertsPerLayer: number;
  /**
   * The cache's VRAM tier (plan.gpu.deviceExperts), null without one: its slots per layer and the
   * share of routed experts found there; `hitRate` is then the share found in VRAM or RAM.
   */
  readonly deviceTier: { readonly slotsPerLayer: number; readonly hitRate: Quantity } | null;
  readonly routing: { readonly source: RoutingSource; readonly skew: number | null; readonly description: string };
  readonly quantities: {
    readonly bytesPerExpert: Quantity;
    readonly expertBytes: Quantity;
    readonly denseLayerBytes: Quantity;
    readonly lockedBytes: Quantity;
    readonly stagingBytes: Quantity;
    readonly expertCacheBytes: Quantity;
    readonly activeBytesPerToken: Quantity;
    /** Share of routed experts found in the cache (0..1). */
    readonly hitRate: Quantity;
    readonly bytesReadPerToken: Quantity;
    readonly floorBytesPerToken: Quantity;
    readonly predictedDecodeTokS: Quantity;
    readonly minimumRamBytes: Quantity;
    /** What the tensor-granular stream schedule (`stream`) reads per token, for comparison. */
    readonly tensorScheduleBytesPerToken: Quantity;
  };
}

/**
 * The VRAM tier as llama.cpp loads it: n_gpu_layers (the output head, then the last blocks, each
 * with its KV cache) on one device, and tensor-name patterns kept on the CPU (an MoE's experts).
 */
export interface GpuPlan {
  /** The ggml device (e.g. Vulkan0); null where the plan was made for a budget alone. */
  readonly device: string | null;
  /** llama.cpp's n_gpu_layers: 0 = nothing offloaded, k + 1 = the output head and the last k blocks. */
  readonly gpuLayers: number;
  /** Blocks placed on the device (whole, or their dense part in 'dense-first'). */
  readonly layers: number[];
  readonly outputOnDevice: boolean;
  /** 'layers': whole blocks; 'dense-first': a mixture's dense part of the blocks, experts in RAM. */
  readonly mode: 'none' | 'layers' | 'dense-first';
  /** Tensor-name patterns (regular expressions) kept in CPU RAM (llama.cpp's -ot …=CPU). */
  readonly cpuTensors: string[];
  /** 'dense-first': layers whose experts are on the device too (the last ones, in the room the dense part left). */
  readonly expertLayers: number[];
  /**
   * 'dense-first' under an expert cache: the cache's VRAM tier in the room the dense part left, a
   * few slots per layer for the most used experts (expert ops then run on the device), else null.
   */
  readonly deviceExperts: { readonly slotsPerLayer: number; readonly slotBytes: Quantity; readonly stagingBytes: Quantity } | null;
  readonly quantities: {
    readonly budgetBytes: Quantity;
    readonly headBytes: Quantity;
    readonly layerWeightBytes: Quantity;
    readonly kvBytes: Quantity;
    readonly computeBytes: Quantity;
    /** What the device holds as llama.cpp counts it (weights + KV + compute): at most the budget. */
    readonly usedBytes: Quantity;
  };
}
