// Validates MODEL for commands that load it: exists, is GGUF (hardened reader), holds an
// architecture llama.cpp can run. Bad input is a UsageError (exit 2) naming the problem.
import { existsSync } from 'node:fs';
import { openGgufModel, type OpenedModel } from '../node/gguf-file.js';
import { GgufError } from '../shared/gguf/reader.js';
import { UsageError } from './errors.js';
import { LLAMA_CPP_ARCHITECTURES } from '../shared/capabilities.js';

// Known to the pinned llama.cpp and a text model (clip is a vision encoder, not runnable alone).
const runnable = (arch: string) => arch !== 'clip' && LLAMA_CPP_ARCHITECTURES.includes(arch);

export async function openModelInput(path: string): Promise<OpenedModel> {
  if (!existsSync(path)) throw new UsageError(`no such file or directory: ${path}`);
  let opened: OpenedModel;
  try {
    opened = await openGgufModel(path);
  } catch (e) {
    if (e instanceof GgufError) throw new UsageError(e.message);
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'EISDIR' || err.code === 'ENOENT' || err.code === 'EACCES') throw new UsageError(`${path}: ${err.message}`);
    throw e;
  }
  const arch = opened.view.architecture;
  if (opened.view.vocabOnly) throw new UsageError(`${path} holds a vocabulary only (no weights); it cannot be run`);
  if (!arch || !runnable(arch)) throw new UsageError(`${path}: unsupported architecture '${arch ?? '(none)'}' (see 'ramforge support')`);
  return opened;
}
