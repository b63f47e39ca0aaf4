// The disk measurement the planner caches: taken in an inference worker (the only process
// that loads the native addon), which reads the way the expert cache does, requests scattered
// over the whole model file (shared/disk-probe-request.ts).
import { WorkerHost } from '../worker/host.js';
import { gpuDriverEnv } from '../worker/gpu-drivers.js';
import type { Measurement } from '../node/disk-bw.js';
import type { ProbeRequest } from '../shared/disk-probe-request.js';
import { formatBytes } from '../shared/size.js';

export async function measureInWorker(file: string, probe: ProbeRequest): Promise<Measurement> {
  process.stderr.write(`ramforge: measuring the device's read rate on the model file (${formatBytes(probe.bytes)} in ${formatBytes(probe.chunkBytes)} direct reads scattered over it) …\n`);
  const host = await WorkerHost.start({ env: gpuDriverEnv(false) });
  try {
    const m = await host.probeDisk(file, probe.bytes, 0, { chunkBytes: probe.chunkBytes, threads: probe.threads, scatter: true });
    return {
      bytesPerS: m.bytes / Math.max(1e-6, m.seconds),
      bytesRead: m.bytes,
      seconds: m.seconds,
      direct: m.direct,
      requests: Math.ceil(m.bytes / probe.chunkBytes),
      chunkBytes: probe.chunkBytes,
      threads: probe.threads,
    };
  } finally {
    await host.close();
  }
}
