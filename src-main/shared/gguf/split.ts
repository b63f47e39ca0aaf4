// Split sets (`name-00001-of-00003.gguf`, written by llama.cpp's gguf-split): naming and the
// checks that the shards form one model. llama.cpp numbers files from 1 and `split.no` from 0.
import { GgufError } from './reader-errors.js';
import { kvInteger, kvString } from './metadata.js';
import type { GgufShard } from './model-view.js';

export interface SplitName {
  readonly prefix: string;
  /** 1-based, as in the file name. */
  readonly no: number;
  readonly count: number;
}

const SPLIT_RE = /^(.+)-(\d{5})-of-(\d{5})\.gguf$/;

export function parseSplitName(fileName: string): SplitName | null {
  const m = SPLIT_RE.exec(fileName);
  if (!m) return null;
  const no = Number(m[2]);
  const count = Number(m[3]);
  if (no < 1 || count < 1 || no > count) return null;
  return { prefix: m[1] as string, no, count };
}

export function splitFileName(prefix: string, no: number, count: number): string {
  return `${prefix}-${String(no).padStart(5, '0')}-of-${String(count).padStart(5, '0')}.gguf`;
}

/**
 * Checks that shards (in file order) are one model: each declares the same split.count equal
 * to the number of shards, its own split.no, the same split.tensors.count equal to the tensors
 * actually present, and no tensor appears twice. A single file without split keys passes.
 */
export function validateSplitSet(shards: readonly GgufShard[]): void {
  const n = shards.length;
  const first = shards[0];
  if (!first) throw new GgufError('NO_MODEL', 'no GGUF file given', null);
  const countOf = (s: GgufShard): number | undefined => kvInteger(s.header, 'split.count');
  if (n === 1) {
    const c = countOf(first);
    if (c !== undefined && c > 1) {
      const e = first.header.kvByKey.get('split.count');
      throw new GgufError('SPLIT', `${first.path}: this file is shard 1 of a ${c}-file split set, but no other shards were found (name them <prefix>-00001-of-${String(c).padStart(5, '0')}.gguf ...)`, e?.valueOffset ?? null);
    }
    return;
  }
  const arch = kvString(first.header, 'general.architecture');
  let declaredTensors: number | undefined;
  const names = new Map<string, number>();
  let total = 0;
  shards.forEach((s, i) => {
    const h = s.header;
    const c = countOf(s);
    if (c !== n) {
      throw new GgufError('SPLIT', `${s.path}: split.count is ${c ?? 'missing'} but the set has ${n} files`, h.kvByKey.get('split.count')?.valueOffset ?? null);
    }
    const no = kvInteger(h, 'split.no');
    if (no !== i) {
      throw new GgufError('SPLIT', `${s.path}: split.no is ${no ?? 'missing'} but the file is shard ${i + 1} of ${n} (split.no ${i})`, h.kvByKey.get('split.no')?.valueOffset ?? null);
    }
    const tc = kvInteger(h, 'split.tensors.count');
    if (tc !== undefined) {
      if (declaredTensors === undefined) declaredTensors = tc;
      else if (tc !== declaredTensors) {
        throw new GgufError('SPLIT', `${s.path}: split.tensors.count is ${tc} but shard 1 says ${declaredTensors}: shards of different models`, h.kvByKey.get('split.tensors.count')?.valueOffset ?? null);
      }
    }
    const a = kvString(h, 'general.architecture');
    if (i > 0 && a !== undefined && a !== arch) {
      throw new GgufError('SPLIT', `${s.path}: architecture '${a}' differs from shard 1's '${arch}': shards of different models`, h.kvByKey.get('general.architecture')?.valueOffset ?? null);
    }
    for (const t of h.tensors) {
      const prev = names.get(t.name);
      if (prev !== undefined) {
        throw new GgufError('SPLIT', `${s.path}: tensor '${t.name}' also appears in shard ${prev + 1}`, t.infoOffset);
      }
      names.set(t.name, i);
    }
    total += h.tensors.length;
  });
  if (declaredTensors !== undefined && declaredTensors !== total) {
    throw new GgufError('SPLIT', `split.tensors.count is ${declaredTensors} but the ${n} shards hold ${total} tensors`, first.header.kvByKey.get('split.tensors.count')?.valueOffset ?? null);
  }
}
