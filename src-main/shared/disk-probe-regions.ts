// Where the device probe reads (pure). A probe of the file's first few hundred MiB measured what
// the host had cached (6–7 GiB/s on storage that reads a large file at 1–2 GB/s): the start of a
// model file is what every load and every tool reads first. The probe reads instead several
// regions spread over the whole file, each large enough to be a sustained read.

/** One region the probe reads: from `offset`, `bytes` long (both multiples of the alignment). */
export interface ProbeRegion {
  readonly offset: number;
  readonly bytes: number;
}

/** 16 regions of 64 MiB: 1 GiB in all, measured to take 0.7–0.8 s at this storage's sustained rate. */
export const PROBE_REGION_BYTES = 64 * 1024 * 1024;
export const PROBE_REGIONS = 16;
/** The native probe reads from offsets aligned to 2 MiB (its huge-page buffer). */
export const PROBE_ALIGN = 2 * 1024 * 1024;
/** The probe stops early once this long has passed (a slow device is measured from fewer regions). */
export const PROBE_DEADLINE_MS = 20_000;

/**
 * `count` regions of `regionBytes` spread evenly from the start to the end of a file of
 * `fileBytes` (the first at 0, the last ending at the file's aligned end); a file smaller than
 * that is read whole, as one region. Offsets are aligned down to `align`.
 */
export function probeRegions(fileBytes: number, count = PROBE_REGIONS, regionBytes = PROBE_REGION_BYTES, align = PROBE_ALIGN): ProbeRegion[] {
  const end = Math.floor(fileBytes / align) * align;
  if (end <= 0) return [];
  if (end <= count * regionBytes) return [{ offset: 0, bytes: end }];
  const span = end - regionBytes;
  const regions: ProbeRegion[] = [];
  for (let i = 0; i < count; i++) {
    const offset = Math.floor((span * i) / (count - 1) / align) * align;
    regions.push({ offset, bytes: regionBytes });
  }
  return regions;
}
