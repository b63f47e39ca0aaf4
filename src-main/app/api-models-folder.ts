// Ollama's /api/delete and /api/copy for the API, kept inside RAMforge's models folder (where
// `ramforge pull` and /api/pull save, and which `ramforge models` and the app list): a name is a
// file name there (`NAME`, `NAME.gguf`, `NAME:latest`), never a path, so a request cannot reach
// any other file; the loaded model is never deleted (unload it first), and a copy never
// overwrites.
import { constants } from 'node:fs';
import { copyFile, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { badRequest, notFound } from '../api/errors.js';
import { modelIdOf } from '../api/model-id.js';
import { defaultDownloadDir } from '../node/download-dir.js';

/** What a name may be: a file name of letters, digits, '.', '_' and '-' (no folders). */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

/** The file in `dir` that `name` names, or a 400 saying what a name may be. */
export function fileInFolder(dir: string, name: string, param: string): string {
  const bare = name.replace(/:latest$/, '').replace(/\.gguf$/i, '');
  if (!NAME.test(bare) || bare.includes('..')) throw badRequest(`'${param}' must name a model of RAMforge's models folder (letters, digits, '.', '_', '-'; no folders), got '${name.slice(0, 200)}'`, param, 'invalid_value');
  return join(dir, `${bare}.gguf`);
}

const exists = (path: string) => stat(path).then((s) => s.isFile(), () => false);

export async function deleteModelFile(name: string, loadedPath: string | null, dir = defaultDownloadDir()): Promise<void> {
  const path = fileInFolder(dir, name, 'model');
  if (!(await exists(path))) throw notFound(`model '${name.slice(0, 200)}' not found in ${dir}`, 'model_not_found');
  if (path === loadedPath) throw badRequest(`'${name.slice(0, 200)}' is the loaded model: unload it first (keep_alive 0)`, 'model', 'model_in_use');
  await unlink(path);
}

export async function copyModelFile(source: string, destination: string, loadedPath: string | null, dir = defaultDownloadDir()): Promise<void> {
  const to = fileInFolder(dir, destination, 'destination');
  const inFolder = fileInFolder(dir, source, 'source');
  // The loaded model may live elsewhere: it is named as the API serves it.
  const loaded = loadedPath !== null && inFolder === join(dir, `${modelIdOf(loadedPath)}.gguf`) ? loadedPath : null;
  const from = (await exists(inFolder)) ? inFolder : loaded;
  if (from === null) throw notFound(`model '${source.slice(0, 200)}' not found in ${dir} and not the loaded model`, 'model_not_found');
  try {
    await copyFile(from, to, constants.COPYFILE_EXCL);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') throw badRequest(`'${destination.slice(0, 200)}' already exists: delete it first or choose another name`, 'destination', 'model_exists');
    throw e;
  }
}
