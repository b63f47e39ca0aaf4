// The machine and the storage a load is prepared for (shared/settings/prepare-load.ts is pure):
// physical cores, RAM, the device's read bandwidth and whether streamed reads bypass the page
// cache. Every path that loads a model asks here, so they all prepare for the same machine.
import { totalmem } from 'node:os';
import type { LoadMachine } from '../shared/settings/prepare-load.js';
import { DEFAULT_READAHEAD_BYTES } from '../shared/plan/stream-select.js';
import { physicalCores } from './machine.js';
import { directIoWorks } from './direct-io.js';
import { ASSUMED_BYTES_PER_S, cachedDiskBandwidth, type DiskBandwidth } from './disk-bw.js';
import { cachedRouting } from './routing-cache.js';
import { probeGpus } from './gpu-devices.js';
import { measuredPopularity, readAheadShare, type MeasuredRouting } from '../shared/moe/measured-routing.js';
import { computeLookup } from './compute-cache.js';
import { expertReadChunk } from '../shared/disk-probe-request.js';
import type { ModelView } from '../shared/gguf/model-view.js';

/** The device's bandwidth as a run takes it: given, else measured earlier (cached), else assumed. */
export function runDiskBandwidth(file: string, given: DiskBandwidth | null): DiskBandwidth {
  return given ?? cachedDiskBandwidth(file) ?? { bytesPerS: ASSUMED_BYTES_PER_S, source: `assumed ${ASSUMED_BYTES_PER_S / 1e9} GB/s (pass --disk-bw, or run \`ramforge plan\` once to measure)` };
}

/** The share of the expert cache's reads earlier runs of this file started ahead, when enough were seen. */
export function readAheadOf(file: string): number | null {
  const r = cachedRouting(file);
  return r ? readAheadShare(r) : null;
}

/** What earlier runs of this file measured of its routing, when it is enough to plan by. */
export function measuredRoutingOf(file: string): MeasuredRouting | null {
  const r = cachedRouting(file);
  return r ? measuredPopularity(r) : null;
}

/** A mixture of experts: the device's rate in reads of one expert's slice, measured earlier (`bench`, `plan`), or null. */
export function expertReadRate(file: string, view: ModelView): DiskBandwidth | null {
  const chunk = expertReadChunk(view);
  return chunk === null ? null : cachedDiskBandwidth(file, chunk);
}

/**
 * `view`: the model, for what its schedule's reads were measured at (an expert's slice).
 * `gpus`: probe the machine's GPUs (a child process, ~0.1 s), for a path that starts its worker
 * with the chosen device's variables (PreparedLoad.gpu.env); a path that does not plans CPU only.
 */
export function loadMachine(files: string[], disk: DiskBandwidth, kvTypeBytes?: number, opts: { gpus?: boolean; view?: ModelView } = {}): LoadMachine {
  const expertRead = opts.view && files.length === 1 ? expertReadRate(files[0] as string, opts.view) : null;
  return {
    physicalCores: physicalCores(),
    machineBytes: totalmem(),
    diskBandwidthBytesPerS: disk.bytesPerS,
    diskBandwidthSource: disk.source,
    // Direct reads put nothing in the page cache: no kernel read-ahead to leave room for.
    readaheadBytes: directIoWorks(files) ? 0 : DEFAULT_READAHEAD_BYTES,
    routing: measuredRoutingOf(files[0] as string),
    readAheadShare: readAheadOf(files[0] as string),
    // What `bench` measured of a schedule's compute on this file's shadow, for the plans of the same schedule.
    compute: computeLookup(files[0] as string),
    ...(expertRead ? { expertRead } : {}),
    ...(kvTypeBytes !== undefined ? { kvTypeBytes } : {}),
    ...(opts.gpus ? { gpus: probeGpus() } : {}),
  };
}
