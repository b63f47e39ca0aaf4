// A generation's timings from the native result, the same for one request on the context and
// for one request of the batch server: decode is every token after the first.
import type { GenerationTimings } from '../shared/worker-protocol.js';

export function timingsOf(r: { promptMs: number; ttftMs: number; perTokenMs: number[]; tokens: number[] }, promptTokensDecoded: number): GenerationTimings {
  const decodeMs = r.perTokenMs.slice(1).reduce((a, b) => a + b, 0);
  const nDecode = Math.max(0, r.tokens.length - 1);
  return {
    promptMs: r.promptMs,
    ttftMs: r.ttftMs,
    decodeMs,
    promptTokS: r.promptMs > 0 ? (promptTokensDecoded * 1000) / r.promptMs : 0,
    decodeTokS: decodeMs > 0 ? (nDecode * 1000) / decodeMs : 0,
    perTokenMs: r.perTokenMs,
  };
}
