// --draft MODEL: the draft is validated like any model (the hardened reader, out of the
// worker) and must speak the target's vocabulary; either failure is a usage error (exit 2)
// before anything loads.
import type { ParsedArgs } from './args.js';
import { flagValues } from './run-flags.js';
import { UsageError } from '../shared/errors.js';
import { openModelInput } from './model-input.js';
import type { OpenedModel } from '../node/gguf-file.js';
import { vocabMismatch } from '../shared/draft/vocab-match.js';
import { draftRefusal } from '../shared/settings/run-settings.js';

export async function openDraftInput(target: OpenedModel, f: ParsedArgs['flags']): Promise<OpenedModel | null> {
  const v = flagValues(f);
  const path = v.draft;
  if (path === undefined) return null;
  const draft = await openDraftModel(target, path, '--draft');
  const refused = draftRefusal(true, v.parallel ?? 1, true);
  if (refused) throw new UsageError(refused);
  return draft;
}

/** A draft model named by `what` (a flag or a setting), validated and of the target's vocabulary. */
export async function openDraftModel(target: OpenedModel, path: string, what: string): Promise<OpenedModel> {
  let draft: OpenedModel;
  try {
    draft = await openModelInput(path);
  } catch (e) {
    if (e instanceof UsageError) throw new UsageError(`${what} ${path}: ${e.message}`);
    throw e;
  }
  const why = vocabMismatch(target.shards[0]!.header, draft.shards[0]!.header);
  if (why) throw new UsageError(`${what} ${path} cannot propose tokens for this model: ${why}. A draft must use the same vocabulary.`);
  return draft;
}
