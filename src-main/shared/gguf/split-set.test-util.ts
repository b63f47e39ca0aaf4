// Splits a tiny model spec into N shard specs the way llama.cpp's gguf-split does: shard 1
// keeps all metadata, every shard gets split.no / split.count / split.tensors.count.
import { GgufValueType as V } from './ggml-types.js';
import { buildGguf, type GgufSpec, type KvSpec } from './build-gguf.test-util.js';

export function splitSpec(spec: GgufSpec, n: number, tweak?: (i: number, kv: KvSpec[]) => KvSpec[]): Uint8Array[] {
  const tensors = spec.tensors ?? [];
  const per = Math.ceil(tensors.length / n);
  const out: Uint8Array[] = [];
  for (let i = 0; i < n; i++) {
    let kv: KvSpec[] = [
      ...(i === 0 ? spec.kv ?? [] : []),
      { key: 'split.no', type: V.UINT16, value: i },
      { key: 'split.count', type: V.UINT16, value: n },
      { key: 'split.tensors.count', type: V.INT32, value: tensors.length },
    ];
    if (tweak) kv = tweak(i, kv);
    out.push(buildGguf({ kv, tensors: tensors.slice(i * per, (i + 1) * per) }).bytes);
  }
  return out;
}
