// Picks the block filler for a ggml type.
import { ggmlTypeById } from '../shared/gguf/ggml-types.js';
import { f16Filler, f32Filler } from './gen-float.js';
import type { BlockFiller, Init } from './gen-common.js';
import { mxfp4Filler } from './gen-mxfp4.js';
import { q4_0Filler } from './gen-q4_0.js';
import { q4_kFiller } from './gen-q4_k.js';
import { q8_0Filler } from './gen-q8_0.js';
import type { Xoshiro128 } from './prng.js';

export type { BlockFiller, Init } from './gen-common.js';

/** The generators, by the type's name in the ggml type table (shared/gguf/ggml-types.ts). */
const FILLERS: Record<string, (init: Init, rng: Xoshiro128) => BlockFiller> = {
  F32: f32Filler,
  F16: f16Filler,
  Q4_0: q4_0Filler,
  Q8_0: q8_0Filler,
  Q4_K: q4_kFiller,
  MXFP4: mxfp4Filler,
};

export function makeFiller(typeId: number, init: Init, rng: Xoshiro128): BlockFiller {
  const make = FILLERS[ggmlTypeById(typeId)?.name ?? ''];
  if (!make) throw new RangeError(`no generator for ggml type ${typeId}`);
  return make(init, rng);
}
