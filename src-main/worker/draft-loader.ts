// Loads the draft model for speculative decoding beside the target: checks that it speaks the
// target's vocabulary, points every weight it shares byte for byte with the target at the
// target's copy (a draft made of the target's own layers then costs only its KV cache), and
// gives it a context of its own.
import type { OpenedModel } from '../node/gguf-file.js';
import { ModelRefusedError, openModelForLoad } from '../node/model-check.js';
import { vocabMismatch } from '../shared/draft/vocab-match.js';
import { sharedTensorCandidates } from '../shared/draft/shared-tensors.js';
import type { DraftInfo, DraftParams } from '../shared/worker-protocol.js';
import type { NativeAddon, NativeContext, NativeContextOptions, NativeModel } from '../native/addon.js';
import { loadModel } from '../native/load-model.js';
import { basename } from 'node:path';
import { WorkerError } from './worker-error.js';

export interface LoadedDraft {
  model: NativeModel;
  ctx: NativeContext;
  info: DraftInfo;
  /** Target tensors the draft reads through the target's copy: the target must keep them resident. */
  sharedNames: string[];
}

/**
 * `repack` must be the target's: a shared weight is only valid in the same layout. `prefault`
 * is the target's too (a draft that shares weights is never prefaulted).
 */
export async function loadDraft(
  addon: NativeAddon,
  target: OpenedModel,
  targetModel: NativeModel,
  p: DraftParams,
  load: { repack: boolean; prefault: boolean },
  ctxOpts: NativeContextOptions,
): Promise<LoadedDraft> {
  let opened: OpenedModel;
  try {
    opened = await openModelForLoad(p.modelPath);
  } catch (e) {
    if (e instanceof ModelRefusedError) throw new WorkerError('BAD_MODEL', `draft: ${e.message}`);
    throw e;
  }
  const th = target.shards[0]!.header;
  const dh = opened.shards[0]!.header;
  const why = vocabMismatch(th, dh);
  if (why) throw new WorkerError('DRAFT_VOCAB', `the draft ${p.modelPath} cannot propose tokens for this model: ${why}`);

  const candidates = sharedTensorCandidates(target.shards, opened.shards);
  const same = candidates.length
    ? await addon.sameBytes(candidates.map((c) => ({ a: c.targetFile, aOffset: c.targetStart, b: c.draftFile, bOffset: c.draftStart, length: c.bytes })))
    : [];
  const shared = candidates.filter((_, i) => same[i] === true);

  let model: NativeModel;
  try {
    // Shared weights are never read through the draft's own mapping: do not prefault it.
    const prefault = load.prefault && shared.length === 0;
    model = await loadModel(addon, opened.shards.map((s) => s.path).slice(0, 1), { mmap: true, repack: load.repack, gpuLayers: 0, prefault });
  } catch (e) {
    throw new WorkerError('LOAD_FAILED', `draft: ${(e as Error).message}`);
  }
  let sharedBytes = 0;
  let ctx: NativeContext;
  try {
    // The loader's freed arenas go back before the context is made and the budget measured
    // (the tokenizer tables are built on another thread, in another malloc arena).
    addon.trimHeap();
    sharedBytes = shared.length ? addon.shareWeights(model, targetModel, shared.map((s) => s.name)) : 0;
    ctx = model.createContext(ctxOpts);
  } catch (e) {
    model.free();
    throw new WorkerError('DRAFT_FAILED', `draft: ${(e as Error).message}`);
  }
  const mi = model.info();
  const total = dh.tensors.reduce((s, t) => s + t.nbytes, 0) + opened.shards.slice(1).reduce((s, sh) => s + sh.header.tensorBytes, 0);
  return {
    model,
    ctx,
    sharedNames: shared.map((s) => s.name),
    info: {
      path: opened.shards[0]!.path,
      name: mi.metadata['general.name'] || basename(opened.shards[0]!.path),
      nLayers: mi.nLayers,
      sharedBytes,
      ownBytes: total - sharedBytes,
      max: p.max,
      min: p.min,
    },
  };
}
