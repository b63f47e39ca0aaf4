// xoshiro128** (Blackman & Vigna): a fast 32-bit PRNG whose state lives in four int32 locals
// while it fills a Uint32Array. Streams are seeded with splitmix32 from (seed, stream id), so
// each tensor gets its own independent, chunk-size-independent sequence.

function splitmix32(state: { s: number }): number {
  state.s = (state.s + 0x9e3779b9) | 0;
  let z = state.s;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return (z ^ (z >>> 16)) >>> 0;
}

/** FNV-1a of a string: a stable 32-bit stream id for a tensor name. */
export function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

export class Xoshiro128 {
  private readonly s = new Int32Array(4);

  constructor(seed: number, stream = 0) {
    if (!Number.isSafeInteger(seed) || seed < 0) throw new RangeError(`seed must be a non-negative integer, got ${seed}`);
    const st = { s: (seed % 0x100000000) ^ Math.imul(stream, 0x632be5ab) };
    const hi = Math.floor(seed / 0x100000000);
    splitmix32(st);
    st.s ^= hi;
    for (let i = 0; i < 4; i++) this.s[i] = splitmix32(st) | 0;
    if ((this.s[0] | this.s[1] | this.s[2] | this.s[3]) === 0) this.s[0] = 1;
  }

  /** Fills `out[from, to)` with uniform 32-bit words. */
  fill(out: Uint32Array, from = 0, to = out.length): void {
    let s0 = this.s[0] as number;
    let s1 = this.s[1] as number;
    let s2 = this.s[2] as number;
    let s3 = this.s[3] as number;
    for (let i = from; i < to; i++) {
      const m = Math.imul(s1, 5);
      out[i] = Math.imul((m << 7) | (m >>> 25), 9);
      const t = s1 << 9;
      s2 ^= s0;
      s3 ^= s1;
      s1 ^= s2;
      s0 ^= s3;
      s2 ^= t;
      s3 = (s3 << 11) | (s3 >>> 21);
    }
    this.s[0] = s0;
    this.s[1] = s1;
    this.s[2] = s2;
    this.s[3] = s3;
  }

  nextU32(): number {
    const one = new Uint32Array(1);
    this.fill(one);
    return one[0] as number;
  }

  /** Uniform in [0, 1). */
  nextFloat(): number {
    return this.nextU32() / 0x100000000;
  }
}
