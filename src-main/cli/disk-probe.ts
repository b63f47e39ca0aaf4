// The disk measurement the planner caches: taken in an inference worker (the only process
// that loads the native addon), which reads the way the stream schedule does.
import { WorkerHost } from '../worker/host.js';
import { gpuDriverEnv } from '../worker/gpu-drivers.js';
import type { Measurement } from '../node/disk-bw.js';

export async function measureInWorker(file: string, maxBytes: number): Promise<Measurement> {
  const host = await WorkerHost.start({ env: gpuDriverEnv(false) });
  try {
    const r = await host.probeDisk(file, maxBytes);
    return { bytesPerS: r.bytes / Math.max(1e-6, r.seconds), bytesRead: r.bytes, seconds: r.seconds, direct: r.direct };
  } finally {
    await host.close();
  }
}
