// The one check every load makes before llama.cpp sees a model: the hardened reader parses and
// validates every header of MODEL (a file, a shard of a split set, a directory holding one
// model), and the model must be one llama.cpp runs and generates with. The CLI makes it before
// it plans; the inference worker makes it again before it loads, so a load that never planned
// (the app when its plan failed, the API) still never hands llama.cpp a file our reader
// refuses, and a hostile file is read outside the process that asked for the load.
import { openGgufModel, type OpenedModel } from './gguf-file.js';
import { GgufError } from '../shared/gguf/reader.js';
import { classifyModel } from '../shared/discovery/classify.js';

/** The model was refused: `message` is the reader's (or the classification's) reason. */
export class ModelRefusedError extends Error {
  readonly code = 'BAD_MODEL';
  constructor(message: string) {
    super(message);
    this.name = 'ModelRefusedError';
  }
}

export async function openModelForLoad(path: string): Promise<OpenedModel> {
  let opened: OpenedModel;
  try {
    opened = await openGgufModel(path);
  } catch (e) {
    if (e instanceof GgufError) throw new ModelRefusedError(e.message);
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'EISDIR' || err.code === 'ENOENT' || err.code === 'EACCES' || err.code === 'EPERM') throw new ModelRefusedError(`${path}: ${err.message}`);
    throw e;
  }
  const first = opened.shards[0];
  const c = classifyModel(opened.view, first!.header);
  if (!c.chat) throw new ModelRefusedError(`${path}: ${c.reason ?? 'not a text model'}; it cannot be run${c.kind === 'unsupported' ? " (see 'ramforge support')" : ''}`);
  return opened;
}
