// A candidate model's headers read (bounded, with the hardened reader) and what they say: the
// kind of file, identity and size, and the plan the caller makes for chat models. A file that
// cannot be read becomes an `unreadable` entry with the reason; nothing is thrown.
import { open, stat } from 'node:fs/promises';
import type { GgufShard } from '../../shared/gguf/model-view.js';
import { GgufError } from '../../shared/gguf/reader-errors.js';
import type { Candidate, DiscoveredModel, PlanSummary } from '../../shared/discovery/types.js';
import { classifyModel, mainQuantization, type Classification } from '../../shared/discovery/classify.js';
import { buildModelView, checkModelView } from '../../shared/gguf/model-view.js';
import { validateSplitSet } from '../../shared/gguf/split.js';
import { readGgufHeaderFile, type OpenedModel } from '../gguf-file.js';

/** Header regions larger than this are refused in a listing (a real one is a few MiB). */
export const DISCOVERY_MAX_HEADER_BYTES = 64 * 1024 * 1024;

/** Makes the plan of a chat model; a thrown Error's message becomes `planError`. */
export type Planner = (m: OpenedModel) => PlanSummary;

export function readReason(e: unknown): string {
  if (e instanceof GgufError) return e.offset === null ? e.detail : `${e.detail} (at byte offset ${e.offset})`;
  const err = e as NodeJS.ErrnoException;
  if (err?.code === 'ENOENT') return 'the file is missing (a broken link: an interrupted download?)';
  if (err?.code === 'EACCES' || err?.code === 'EPERM') return 'permission denied';
  if (err?.code === 'EISDIR') return 'a folder, not a file';
  return err?.message ?? String(e);
}

/** A clone without `git lfs` leaves small text files in place of the weights. */
async function isLfsPointer(path: string): Promise<boolean> {
  try {
    const fh = await open(path, 'r');
    try {
      const buf = Buffer.alloc(64);
      const { bytesRead } = await fh.read(buf, 0, 64, 0);
      return buf.subarray(0, bytesRead).toString('latin1').startsWith('version https://git-lfs.github.com/spec/');
    } finally {
      await fh.close();
    }
  } catch {
    return false;
  }
}

async function sizeOf(files: readonly string[]): Promise<number | null> {
  let total = 0;
  for (const f of files) {
    try {
      total += (await stat(f)).size;
    } catch {
      return null;
    }
  }
  return total;
}

export async function readCandidate(c: Candidate, planner: Planner | null): Promise<DiscoveredModel> {
  const base = {
    source: c.source,
    root: c.root,
    name: c.name,
    path: c.files[0] as string,
    files: [...c.files],
  };
  const none = { architecture: null, modelName: null, parameterCount: null, quantization: null, contextLength: null, plan: null, planError: null };
  const unreadable = async (reason: string): Promise<DiscoveredModel> => ({ ...base, fileBytes: await sizeOf(c.files), kind: 'unreadable', chat: false, reason, ...none });
  if (c.problem) return unreadable(c.problem);
  let m: OpenedModel;
  let cls: Classification;
  try {
    const shards: GgufShard[] = [];
    let bytesRead = 0;
    for (const path of c.files) {
      const r = await readGgufHeaderFile(path, { maxHeaderBytes: DISCOVERY_MAX_HEADER_BYTES });
      shards.push({ path, header: r.header });
      bytesRead += r.bytesRead;
    }
    validateSplitSet(shards);
    const first = shards[0] as GgufShard;
    const view = buildModelView(shards);
    cls = classifyModel(view, first.header);
    // Adapters and projectors are not whole models: the checks of a model's layers and
    // required tensors do not apply to them.
    if (cls.kind !== 'adapter' && cls.kind !== 'projector') checkModelView(view, first.header);
    m = { input: base.path, shards, view, bytesRead };
  } catch (e) {
    if (e instanceof GgufError && e.code === 'BAD_MAGIC' && (await isLfsPointer(e.file ?? base.path))) {
      return unreadable('a Git LFS pointer, not the model: the file itself was never fetched (git lfs pull)');
    }
    return unreadable(readReason(e));
  }
  const v = m.view;
  let plan: PlanSummary | null = null;
  let planError: string | null = null;
  if (cls.chat && planner) {
    try {
      plan = planner(m);
    } catch (e) {
      planError = (e as Error).message;
    }
  }
  return {
    ...base,
    fileBytes: v.fileBytes,
    kind: cls.kind,
    chat: cls.chat,
    reason: cls.reason,
    architecture: v.architecture,
    modelName: v.name,
    parameterCount: v.parameterCount,
    quantization: mainQuantization(v),
    contextLength: v.contextLength,
    plan,
    planError,
  };
}
