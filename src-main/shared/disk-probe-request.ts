// What the device probe reads (pure). Two earlier probes measured what the host had cached: the
// file's first 512 MiB (what every load reads first: 6–7 GiB/s on storage that reads a large file
// at 1–2 GB/s), then 16 sequential regions of 64 MiB spread over the file (2.9–3.2 GiB/s on a
// 17 GB file whose 1 MiB random reads ran at 0.8–0.9 GiB/s: the host reads ahead of a sequential
// region). The probe now reads the way the expert cache does: requests of a couple of MiB, several
// in flight, each at a chunk of the file chosen by a fixed permutation, so that neither a region
// the host read recently nor its read-ahead of a sequential one can flatter the figure.

/** One probe: `bytes` in requests of `chunkBytes`, `threads` in flight, scattered over the file. */
export interface ProbeRequest {
  readonly bytes: number;
  readonly chunkBytes: number;
  readonly threads: number;
  readonly scatter: true;
}

/** 512 MiB: 0.5–0.7 s at this storage's sustained rate, 5 s on a device of 100 MB/s. */
export const PROBE_BYTES = 512 * 1024 * 1024;
/** The native probe reads whole 2 MiB chunks (its buffer is in 2 MiB pages). */
export const PROBE_CHUNK = 2 * 1024 * 1024;
/** As many requests in flight as the expert cache's I/O threads issue (EXPERT_IO_THREADS). */
export const PROBE_THREADS = 8;

/**
 * The probe for a file of `fileBytes`: PROBE_BYTES, or a quarter of a smaller file (a probe that
 * reads a small file whole measures the host's cache of it), in whole chunks; null when the file
 * has fewer than PROBE_THREADS chunks.
 */
export function probeRequest(fileBytes: number): ProbeRequest | null {
  const chunks = Math.floor(fileBytes / PROBE_CHUNK);
  if (chunks < PROBE_THREADS) return null;
  const bytes = Math.min(PROBE_BYTES, Math.max(PROBE_THREADS, Math.floor(chunks / 4)) * PROBE_CHUNK);
  return { bytes, chunkBytes: PROBE_CHUNK, threads: PROBE_THREADS, scatter: true };
}
