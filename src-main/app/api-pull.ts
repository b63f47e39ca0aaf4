// Ollama's /api/pull for the API, with `ramforge pull`'s download code: every file of the model
// at a URL (all shards of a split set) into RAMforge's models folder, resumable from a .part,
// checked against the sha256 the server publishes beside it (NAME.sha256, X-Linked-Etag), renamed
// into place only when complete. A file already there at its full size is skipped. Unlike the
// CLI it shows no plan first: Ollama's clients have no place for one (`ramforge plan URL` does).
import { mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { PullProgress, PulledFile } from '../api/backend.js';
import { ApiError, badRequest, notFound } from '../api/errors.js';
import { defaultDownloadDir } from '../node/download-dir.js';
import { DownloadError, download, siblingSha256 } from '../node/remote/download.js';
import { HttpError } from '../node/remote/http-get.js';
import { downloadFileName, isModelUrl, parseModelUrl, splitSetUrls } from '../shared/remote/model-url.js';

/** The files' names, or a 400 saying what `model` must be. */
function namesOf(url: string): { urls: string[]; names: string[] } {
  if (!isModelUrl(url)) throw badRequest(`this server pulls a model from an http(s) URL of a .gguf file (as ramforge pull does), got '${url.slice(0, 200)}': there is no registry of model names here`, 'model', 'invalid_value');
  try {
    parseModelUrl(url);
    const urls = splitSetUrls(url);
    return { urls, names: urls.map(downloadFileName) };
  } catch (e) {
    throw badRequest((e as Error).message, 'model', 'invalid_value');
  }
}

async function pullOne(url: string, dest: string, name: string, onProgress: (p: PullProgress) => void): Promise<PulledFile> {
  const existing = await stat(dest).then((s) => s.size, () => null);
  if (existing !== null) {
    onProgress({ file: name, completed: existing, total: existing });
    return { path: dest, bytes: existing, sha256: '', verified: false, skipped: true };
  }
  try {
    const expected = (await siblingSha256(url)).sha;
    const r = await download({ url, dest, sha256: expected, retries: 3, onProgress: (p) => onProgress({ file: name, completed: p.done, total: p.total }) });
    return { path: r.path, bytes: r.bytes, sha256: r.sha256, verified: r.verifiedAgainst !== null, skipped: false };
  } catch (e) {
    if (e instanceof HttpError && e.kind === 'not-found') throw notFound(e.message, 'model_not_found');
    if (e instanceof DownloadError || e instanceof HttpError) throw new ApiError(500, 'server_error', e.message, 'download_failed');
    throw e;
  }
}

export async function pullModel(url: string, onProgress: (p: PullProgress) => void, dir = defaultDownloadDir()): Promise<PulledFile[]> {
  const { urls, names } = namesOf(url);
  await mkdir(dir, { recursive: true });
  const out: PulledFile[] = [];
  for (const [i, u] of urls.entries()) out.push(await pullOne(u, join(dir, names[i] as string), names[i] as string, onProgress));
  return out;
}
