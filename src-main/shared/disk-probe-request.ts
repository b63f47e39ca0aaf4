// What the device probe reads (pure). Two earlier probes measured what the host had cached: the
// file's first 512 MiB (what every load reads first: 6–7 GiB/s on storage that reads a large file
// at 1–2 GB/s), then 16 sequential regions of 64 MiB spread over the file (2.9–3.2 GiB/s on a
// 17 GB file whose 1 MiB random reads ran at 0.8–0.9 GiB/s: the host reads ahead of a sequential
// region). The probe now reads the way the expert cache does: requests of a couple of MiB, several
// in flight, each at a chunk of the file chosen by a fixed permutation, so that neither a region
// the host read recently nor its read-ahead of a sequential one can flatter the figure.

import type { ModelView } from './gguf/model-view.js';

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
export function probeRequest(fileBytes: number, chunkBytes = PROBE_CHUNK): ProbeRequest | null {
  const chunks = Math.floor(fileBytes / chunkBytes);
  if (chunks < PROBE_THREADS) return null;
  // Whole 2 MiB units (the native probe's unit of length), at least one chunk per thread.
  const bytes = Math.min(PROBE_BYTES, Math.max(PROBE_THREADS * chunkBytes, Math.floor(chunks / 4) * chunkBytes));
  return { bytes: Math.max(PROBE_CHUNK, Math.floor(bytes / PROBE_CHUNK) * PROBE_CHUNK), chunkBytes, threads: PROBE_THREADS, scatter: true };
}

/**
 * The size of the reads an expert cache makes of this model: one expert's slice of its largest
 * expert tensor (each miss is a read of that size per expert tensor; experts of one tensor are
 * not adjacent often enough to count on coalescing), in whole 4 KiB for direct I/O. Null for a
 * model without experts. On this machine's storage 0.9 MiB reads ran at 0.6 of 2 MiB ones.
 */
export function expertReadChunk(view: ModelView): number | null {
  const m = view.moe;
  if (!m || m.expertCount <= 0) return null;
  const names = new Set(m.layers.flatMap((l) => l.expertTensors));
  let slice = 0;
  for (const t of view.tensors) if (names.has(t.name) && t.name.endsWith('.weight')) slice = Math.max(slice, t.nbytes / m.expertCount);
  if (slice <= 0) return null;
  return Math.min(64 * 1024 * 1024, Math.ceil(slice / 4096) * 4096);
}
