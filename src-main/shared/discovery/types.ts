// What model discovery reports: every GGUF model found where the ecosystem keeps them, with
// where it came from, what kind of file it is, and its plan verdict for a budget. The JSON of
// `ramforge models --json` (docs/cli-json.md, "models").
import type { Verdict } from '../plan/plan-types.js';

/** In the order they are searched (a file found twice is listed under the first). */
export const DISCOVERY_SOURCES = ['ollama', 'lmstudio', 'huggingface', 'llama.cpp', 'ramforge', 'downloads', 'folder'] as const;
export type DiscoverySource = (typeof DISCOVERY_SOURCES)[number];

export const SOURCE_LABELS: Record<DiscoverySource, string> = {
  ollama: 'Ollama',
  lmstudio: 'LM Studio',
  huggingface: 'Hugging Face cache',
  'llama.cpp': 'llama.cpp cache',
  ramforge: 'RAMforge',
  downloads: 'Downloads',
  folder: 'Added folders',
};

/**
 * model: a model llama.cpp can chat with. The others are listed but not offered as chat
 * models: embedding (encoder-only), adapter (LoRA), projector (multimodal encoder, mmproj),
 * vocab-only (a tokenizer without weights), unsupported (an architecture the pinned llama.cpp
 * does not know), unreadable (with the reason).
 */
export type ModelKind = 'model' | 'embedding' | 'adapter' | 'projector' | 'vocab-only' | 'unsupported' | 'unreadable';

export interface PlanSummary {
  readonly verdict: Verdict;
  readonly reason: string;
  readonly ctx: number;
  readonly ramUsedBytes: number | null;
  readonly minimumRamBytes: number | null;
  readonly fullResidencyRamBytes: number | null;
  readonly bytesReadPerToken: number | null;
  readonly predictedDecodeTokS: number | null;
}

export interface DiscoveredModel {
  readonly source: DiscoverySource;
  /** The folder searched. */
  readonly root: string;
  /** As the source names it: `llama3.2:1b` (Ollama), `org/repo/file.gguf` (Hugging Face), a path below the root otherwise. */
  readonly name: string;
  /** What to give `ramforge run/plan/inspect`: the file, the first shard, or the Ollama blob. */
  readonly path: string;
  /** Every file of the model (shards in order). */
  readonly files: string[];
  /** Sum of the files' sizes; null when unknown (unreadable). */
  readonly fileBytes: number | null;
  readonly kind: ModelKind;
  /** Offered as a chat model. */
  readonly chat: boolean;
  /** Why it is unreadable or not a chat model; null for chat models. */
  readonly reason: string | null;
  readonly architecture: string | null;
  /** general.name */
  readonly modelName: string | null;
  readonly parameterCount: number | null;
  /** The ggml type holding the most bytes (Q4_K, Q8_0, F16, ...). */
  readonly quantization: string | null;
  readonly contextLength: number | null;
  /** The plan for the budget (chat models only); null when no plan was made. */
  readonly plan: PlanSummary | null;
  readonly planError: string | null;
}

export interface DiscoveryRoot {
  readonly source: DiscoverySource;
  readonly path: string;
  readonly present: boolean;
}

export interface DiscoveryBudget {
  readonly ramBytes: number;
  /** '--ram', or that it is this machine's RAM. */
  readonly ramSource: string;
  readonly diskBandwidthSource: string;
}

export interface DiscoveryReport {
  readonly schemaVersion: 1;
  readonly budget: DiscoveryBudget | null;
  readonly roots: DiscoveryRoot[];
  readonly models: DiscoveredModel[];
}

/** A model found on disk before its header is read: the files, or why it cannot be read. */
export interface Candidate {
  readonly source: DiscoverySource;
  readonly root: string;
  readonly name: string;
  readonly files: string[];
  /** Known unreadable without opening anything (a corrupt manifest, a missing blob or shard). */
  readonly problem?: string;
}
