// Commands that take a model URL: open it from its headers (range requests only) with the CLI's
// exit codes, and the storage bandwidth a plan assumes for it before it is downloaded.
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { openRemoteModel, type RemoteModel } from '../node/remote/remote-gguf.js';
import { HttpError } from '../node/remote/http-get.js';
import { GgufError } from '../shared/gguf/reader-errors.js';
import { parseModelUrl } from '../shared/remote/model-url.js';
import { cachedDiskBandwidth, type DiskBandwidth } from '../node/disk-bw.js';
import { ExitError, EXIT, UsageError } from '../shared/errors.js';

/**
 * Opens a model URL. Exit 2 for bad input (not a URL, nothing at the URL, a malformed header);
 * exit 1 for what the network or the server did (timeouts, no range support, HTTP errors).
 */
export async function openRemoteModelOrExit(url: string): Promise<RemoteModel> {
  try {
    parseModelUrl(url);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  try {
    return await openRemoteModel(url);
  } catch (e) {
    if (e instanceof GgufError) throw new UsageError(e.message);
    if (e instanceof HttpError) throw e.kind === 'not-found' ? new UsageError(e.message) : new ExitError(e.message, EXIT.failure);
    throw e;
  }
}

/** Read speed assumed when nothing was measured on the device a download goes to. */
export const ASSUMED_DOWNLOAD_DISK_BYTES_PER_S = 1e9;

/**
 * The bandwidth of the storage a downloaded model will be read from: the cached measurement of
 * the device holding `dir` (or its nearest existing parent), else an assumed figure that says so.
 */
export function downloadDiskBandwidth(dir: string): DiskBandwidth {
  let d = dir;
  while (!existsSync(d) && dirname(d) !== d) d = dirname(d);
  const cached = cachedDiskBandwidth(d);
  if (cached) return { bytesPerS: cached.bytesPerS, source: `${cached.source}, for ${dir}` };
  return {
    bytesPerS: ASSUMED_DOWNLOAD_DISK_BYTES_PER_S,
    source: `assumed ${ASSUMED_DOWNLOAD_DISK_BYTES_PER_S / 1e9} GB/s: nothing measured yet on the device of ${dir} (pass --disk-bw)`,
  };
}
