// Picks the block filler for a ggml type.
import { f16Filler, f32Filler } from './gen-float.js';
import type { BlockFiller, Init } from './gen-common.js';
import { q4_0Filler } from './gen-q4_0.js';
import { q4_kFiller } from './gen-q4_k.js';
import { q8_0Filler } from './gen-q8_0.js';
import { GGML_F16, GGML_F32, GGML_Q4_0, GGML_Q4_K, GGML_Q8_0 } from './ggml-ids.js';
import type { Xoshiro128 } from './prng.js';

export type { BlockFiller, Init } from './gen-common.js';

export function makeFiller(typeId: number, init: Init, rng: Xoshiro128): BlockFiller {
  switch (typeId) {
    case GGML_F32:
      return f32Filler(init, rng);
    case GGML_F16:
      return f16Filler(init, rng);
    case GGML_Q4_0:
      return q4_0Filler(init, rng);
    case GGML_Q8_0:
      return q8_0Filler(init, rng);
    case GGML_Q4_K:
      return q4_kFiller(init, rng);
    default:
      throw new RangeError(`no generator for ggml type ${typeId}`);
  }
}
