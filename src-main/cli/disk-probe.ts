// The disk measurement the planner caches: taken in an inference worker (the only process
// that loads the native addon), which reads the way the stream schedule does, region by region
// over the whole model file (shared/disk-probe-regions.ts), within a deadline.
import { WorkerHost } from '../worker/host.js';
import { gpuDriverEnv } from '../worker/gpu-drivers.js';
import type { Measurement } from '../node/disk-bw.js';
import { PROBE_DEADLINE_MS, type ProbeRegion } from '../shared/disk-probe-regions.js';
import { formatBytes } from '../shared/size.js';

/** A line on stderr once the probe has taken longer than this (a slow device). */
const PROGRESS_AFTER_MS = 2000;

export async function measureInWorker(file: string, regions: readonly ProbeRegion[]): Promise<Measurement> {
  const host = await WorkerHost.start({ env: gpuDriverEnv(false) });
  const t0 = performance.now();
  let bytes = 0;
  let seconds = 0;
  let direct = true;
  let done = 0;
  try {
    for (const r of regions) {
      const m = await host.probeDisk(file, r.bytes, r.offset);
      bytes += m.bytes;
      seconds += m.seconds;
      direct &&= m.direct;
      done++;
      const elapsed = performance.now() - t0;
      if (elapsed > PROGRESS_AFTER_MS && done < regions.length)
        process.stderr.write(`ramforge: measuring the device's read rate: ${done} of ${regions.length} regions, ${formatBytes(bytes)} at ${formatBytes(bytes / Math.max(1e-6, seconds))}/s\n`);
      if (elapsed > PROBE_DEADLINE_MS) break;
    }
    return { bytesPerS: bytes / Math.max(1e-6, seconds), bytesRead: bytes, seconds, direct, regions: done };
  } finally {
    await host.close();
  }
}
