// Shapes of what the residency engine observes, streamed live to hosts and kept in reports.

// One tier list for the plan, the worker and the report.
export type { Tier } from './plan/plan-types.js';

export type ResidencyEventKind = 'prefetch' | 'drop' | 'late' | 'stall' | 'release';

export interface ResidencyEvent {
  tMs: number;
  kind: ResidencyEventKind;
  layer: number;
  bytes: number;
  durMs?: number;
}

export interface ResidencySample {
  /** Milliseconds since the worker started the operation. */
  tMs: number;
  /** Tokens decoded so far (0 during load and prompt). */
  token: number;
  phase: 'load' | 'prompt' | 'decode' | 'idle';
  /** Resident bytes per layer, same order as the plan's layers. */
  layerResident: (number | null)[];
  persistentResident: number | null;
  /** Resident bytes of each row outside the layers (token embeddings, output head, …), in the residency rows' order (absent from older workers). */
  outsideResident?: (number | null)[];
  rssBytes: number | null;
  /** Charge of the worker's memory group (capped runs), else null. */
  cgroupBytes: number | null;
  cgroupLimitBytes: number | null;
  /** Cumulative times the group's limit was hit (capped runs), else null. */
  limitHits: number | null;
  /** Resident bytes of the weights the stream schedule holds locked, and their total. */
  pinnedResident: number | null;
  pinnedBytes: number | null;
  /** Cumulative bytes read from storage by the worker (/proc/self/io read_bytes). */
  readBytes: number | null;
  majorFaults: number | null;
  decodeTokS: number | null;
  events: ResidencyEvent[];
  /** A mixture of experts under the stream policy: the expert cache so far (absent otherwise). */
  experts?: ExpertSample;
  /** Layers on RPC nodes (`--rpc`): what crossed the network to each, so far (absent otherwise). */
  network?: NetworkSample;
}

/** Cumulative per RPC node, in the plan's node order. */
export interface NetworkSample {
  nodes: NetworkNodeSample[];
}

export interface NetworkNodeSample {
  endpoint: string;
  /** The kernel's TCP counters of this process's connection to the node (0 before it connects). */
  bytesSent: number;
  bytesReceived: number;
  /** Time the decode thread waited on the node: its inputs sent, its layers computed, the result back. */
  waitMs: number;
}

/** The expert cache's cumulative counters at a sample, and which expert each slot holds. */
export interface ExpertSample {
  /** (layer, expert) pairs micro-batches were routed to, and of them already in a slot. */
  routed: number;
  hits: number;
  /** Of the routed, read ahead on a prediction (in a slot, or still being read, when needed). */
  prefetchHits: number;
  /** Experts read into a slot; of them read ahead on a prediction. */
  loads: number;
  prefetches: number;
  readBytes: number;
  /** Milliseconds at least one expert read was in flight: readBytes over it is the rate the reads got from the device while they ran. */
  ioBusyMs: number;
  /** Times and milliseconds compute waited for an expert. */
  stalls: number;
  stallMs: number;
  /** Routed experts a prediction was made for, and of them predicted right. */
  predicted: number;
  predictedRight: number;
  /** Micro-batch × layer computed from the staging buffer (routed to more experts than the cache holds). */
  staged: number;
  /** Read-ahead dropped before its read (the real routing came first), and bytes read ahead for experts never used. */
  prefetchDropped: number;
  prefetchWastedBytes: number;
  /** Predictions made, and of them acted on (read ahead): read-ahead runs only while its measured precision pays. */
  predictions: number;
  predictionsIssued: number;
  /** Experts copied from the staging buffer into slots after a staged micro-batch (a prompt's experts kept for decode). */
  promoted: number;
  /** Lossy (--skip-cold-experts): routed experts not read because they missed and weighed less than the threshold, and their weights summed. */
  skipped: number;
  skippedWeight: number;
  /** Experts read into the slots at setup: what earlier runs of the model were routed to most (a warm start). */
  warmed: number;
  /** Expert tensors whose slots hold the CPU kernels' repacked layout (as llama.cpp repacks weights held in RAM). */
  repackedProjections: number;
  /**
   * The GPU tier (VRAM slots above the RAM slots), 0 without one: routed experts found in a VRAM
   * slot (counted in neither `hits` nor `loads`: those are the RAM tier's, for the VRAM misses),
   * experts uploaded from RAM into VRAM and their bytes.
   */
  deviceHits: number;
  uploads: number;
  uploadBytes: number;
  /** Per MoE layer, the expert each slot holds (-1: empty or being read), and the micro-batches routed to each expert so far. */
  resident: { layer: number; slots: number[]; uses: number[]; deviceSlots?: number[] }[];
}
