// Weights a draft may share with its target: same name, type and shape. Whether the bytes are
// the same too is for the worker to check (it reads them); this only lists the candidates.
import type { GgufShard } from '../gguf/model-view.js';

export interface SharedCandidate {
  name: string;
  /** The files holding the tensor and the absolute offsets of its data in each. */
  targetFile: string;
  targetStart: number;
  draftFile: string;
  draftStart: number;
  bytes: number;
}

export function sharedTensorCandidates(target: readonly GgufShard[], draft: readonly GgufShard[]): SharedCandidate[] {
  const byName = new Map(target.flatMap((s) => s.header.tensors.map((t) => [t.name, { file: s.path, t }] as const)));
  const out: SharedCandidate[] = [];
  for (const s of draft)
    for (const d of s.header.tensors) {
      const hit = byName.get(d.name);
      if (!hit) continue;
      const t = hit.t;
      if (t.typeId !== d.typeId || t.nbytes !== d.nbytes || t.dims.length !== d.dims.length || t.dims.some((n, i) => n !== d.dims[i])) continue;
      out.push({ name: d.name, targetFile: hit.file, targetStart: t.start, draftFile: s.path, draftStart: d.start, bytes: d.nbytes });
    }
  return out;
}
