// Mutation fuzzing of GGUF headers, shared by the quick fuzz test and scripts/fuzz-gguf.mjs.
// A run passes when every mutated file either parses (and its model view builds) or is
// rejected with a GgufError — never another exception — and no parse is slow.
import { parseGgufHeader } from './reader.js';
import { GgufError } from './reader-errors.js';
import { buildModelView, checkModelView } from './model-view.js';
import { tinyModel } from './tiny-models.test-util.js';
import { mulberry32 } from '../seeded-random.js';

const INTERESTING_U32 = [0, 1, 2, 3, 4, 8, 9, 12, 13, 31, 32, 33, 63, 64, 255, 256, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff];
const INTERESTING_U64 = [0n, 1n, 2n, 63n, 64n, 1000n, 2n ** 31n, 2n ** 32n, 2n ** 53n, 2n ** 62n, 2n ** 63n - 1n, 2n ** 63n, 2n ** 64n - 1n];

/** Seeds: valid tiny models of all three architectures, header region plus a little payload. */
export function fuzzSeeds(): Uint8Array[] {
  return [
    tinyModel({ arch: 'llama', layers: 2, vocab: 8, embd: 32, ff: 32 }),
    tinyModel({ arch: 'qwen2', layers: 1, vocab: 8, embd: 32, ff: 32, matType: 8 }),
    tinyModel({ arch: 'gptneox', layers: 1, vocab: 8, embd: 32, ff: 32, matType: 2 }),
  ];
}

export function mutate(seed: Uint8Array, rnd: () => number): Uint8Array {
  const pick = (n: number): number => Math.floor(rnd() * n);
  let b = seed.slice();
  const rounds = 1 + pick(4);
  for (let r = 0; r < rounds; r++) {
    const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
    // Half the mutations hit the first bytes (counts, keys), half anywhere in the header region.
    const pos = pick(Math.max(1, Math.min(b.length, rnd() < 0.5 ? 700 : 4096)));
    switch (pick(7)) {
      case 0:
        if (pos < b.length) b[pos] = (b[pos] as number) ^ (1 << pick(8));
        break;
      case 1:
        if (pos < b.length) b[pos] = pick(256);
        break;
      case 2:
        if (pos + 4 <= b.length) dv.setUint32(pos, INTERESTING_U32[pick(INTERESTING_U32.length)] as number, true);
        break;
      case 3:
        if (pos + 8 <= b.length) dv.setBigUint64(pos, INTERESTING_U64[pick(INTERESTING_U64.length)] as bigint, true);
        break;
      case 4:
        b = b.slice(0, pick(b.length + 1));
        break;
      case 5: {
        const n = 1 + pick(16);
        const out = new Uint8Array(b.length + n);
        out.set(b.subarray(0, pos));
        for (let i = 0; i < n; i++) out[pos + i] = pick(256);
        out.set(b.subarray(pos), pos + n);
        b = out;
        break;
      }
      default: {
        const n = 1 + pick(16);
        const out = new Uint8Array(Math.max(0, b.length - n));
        out.set(b.subarray(0, Math.min(pos, out.length)));
        if (pos + n < b.length) out.set(b.subarray(pos + n), pos);
        b = out;
      }
    }
  }
  return b;
}

export interface FuzzResult {
  iterations: number;
  parsed: number;
  rejected: number;
  codes: Record<string, number>;
  slowestMs: number;
  /** Non-GgufError exceptions: each is a bug. */
  crashes: { iteration: number; error: string; bytesHex: string }[];
}

export function runFuzz(iterations: number, seed = 1, slowMs = 1000): FuzzResult {
  const rnd = mulberry32(seed);
  const seeds = fuzzSeeds();
  const res: FuzzResult = { iterations, parsed: 0, rejected: 0, codes: {}, slowestMs: 0, crashes: [] };
  for (let i = 0; i < iterations; i++) {
    const input = mutate(seeds[i % seeds.length] as Uint8Array, rnd);
    const t0 = performance.now();
    try {
      const h = parseGgufHeader(input, input.length);
      const view = buildModelView([{ path: 'fuzz.gguf', header: h }]);
      checkModelView(view, h);
      res.parsed++;
    } catch (e) {
      if (e instanceof GgufError) {
        res.rejected++;
        res.codes[e.code] = (res.codes[e.code] ?? 0) + 1;
      } else if (res.crashes.length < 20) {
        res.crashes.push({ iteration: i, error: String((e as Error)?.stack ?? e), bytesHex: Array.from(input.subarray(0, 512), (b) => b.toString(16).padStart(2, '0')).join('') });
      }
    }
    const dt = performance.now() - t0;
    if (dt > res.slowestMs) res.slowestMs = dt;
    if (dt > slowMs && res.crashes.length < 20) res.crashes.push({ iteration: i, error: `slow parse: ${dt.toFixed(0)} ms`, bytesHex: '' });
  }
  return res;
}
