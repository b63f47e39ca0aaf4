// What HTTP response headers say about a remote file: the byte range a 206 carries, and a
// sha256 the server publishes for it. Pure.

export interface ContentRange {
  readonly start: number;
  /** Inclusive, as HTTP writes it. */
  readonly end: number;
  /** Size of the whole file; null when the server writes `*`. */
  readonly total: number | null;
}

/** `bytes 0-1023/4096` → {0, 1023, 4096}; null for anything malformed or unsatisfied (`bytes *\/4096`). */
export function parseContentRange(value: string | undefined): ContentRange | null {
  if (!value) return null;
  const m = /^\s*bytes\s+(\d+)-(\d+)\/(\d+|\*)\s*$/i.exec(value);
  if (!m) return null;
  const start = Number(m[1]);
  const end = Number(m[2]);
  const total = m[3] === '*' ? null : Number(m[3]);
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || end < start) return null;
  if (total !== null && (!Number.isSafeInteger(total) || end >= total)) return null;
  return { start, end, total };
}

/** The size in `bytes *\/4096` (a 416's answer): the file is shorter than the range asked for. */
export function unsatisfiedRangeTotal(value: string | undefined): number | null {
  const m = value ? /^\s*bytes\s+\*\/(\d+)\s*$/i.exec(value) : null;
  return m ? Number(m[1]) : null;
}

const SHA256_RE = /^[0-9a-f]{64}$/;

export function isSha256(hex: string): boolean {
  return SHA256_RE.test(hex);
}

/**
 * A sha256 the server publishes in its headers, looked for in every response of a redirect
 * chain: `X-Linked-Etag` (Hugging Face puts the LFS object's sha256 there, on the redirect),
 * when it is 64 hex digits. A plain `ETag` is not used: it is opaque (RFC 9110), and some
 * storage back ends send 64-hex ETags that are other hashes, which would turn good downloads
 * into checksum failures.
 */
export function publishedSha256(headerSets: readonly Record<string, string | string[] | undefined>[]): { sha256: string; from: string } | null {
  for (const h of headerSets) {
    const raw = h['x-linked-etag'];
    const v = Array.isArray(raw) ? raw[0] : raw;
    if (typeof v !== 'string') continue;
    const tag = v.trim().replace(/^W\//i, '').replace(/^"(.*)"$/, '$1').trim().toLowerCase();
    if (isSha256(tag)) return { sha256: tag, from: 'X-Linked-Etag' };
  }
  return null;
}

/**
 * The hash in a `.sha256` file as sha256sum writes it (`<hex>  <name>`, or `<hex>` alone).
 * With a name in the file, it must be the one downloaded; null when nothing matches.
 */
export function parseSha256File(text: string, fileName: string): string | null {
  for (const line of text.split(/\r?\n/)) {
    const m = /^\s*([0-9a-fA-F]{64})(?:\s+\*?(.+?))?\s*$/.exec(line);
    if (!m) continue;
    const name = m[2];
    if (name === undefined || name === fileName || name.split('/').pop() === fileName) return (m[1] as string).toLowerCase();
  }
  return null;
}
