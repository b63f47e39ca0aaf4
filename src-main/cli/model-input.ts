// Validates MODEL for commands that load it, with the check the worker repeats before it loads
// (node/model-check.ts). Bad input is a UsageError (exit 2) naming the problem.
import type { OpenedModel } from '../node/gguf-file.js';
import { ModelRefusedError, openModelForLoad } from '../node/model-check.js';
import { UsageError } from '../shared/errors.js';

export async function openModelInput(path: string): Promise<OpenedModel> {
  try {
    return await openModelForLoad(path);
  } catch (e) {
    if (e instanceof ModelRefusedError) throw new UsageError(e.message);
    throw e;
  }
}
