// Speculative decoding of the app's generations: each verify pass as its first token reports
// it (TokenEvent.pass), then the generation's own figures (GenerationResult.draft). A new
// request, or a new load, starts over.
import type { GenerationResult } from '../../src-main/shared/worker-protocol.js';
import { addTokens, emptySpecRun, finishRun, type PassCount, type SpecRun } from '../lib/speculative-model.js';
import type { Slice } from './types.js';

export interface SpeculativeSlice {
  spec: SpecRun;
  onSpecTokens(requestId: string, tokens: number, passes: PassCount[]): void;
  onSpecDone(requestId: string, result: GenerationResult): void;
  resetSpec(): void;
}

export const createSpeculativeSlice: Slice<SpeculativeSlice> = (set, get) => ({
  spec: emptySpecRun(),
  onSpecTokens: (requestId, tokens, passes) => {
    // A model without a draft reports no passes: nothing to keep for it.
    if (passes.length === 0 && !get().engine.model?.draft) return;
    set({ spec: addTokens(get().spec, requestId, tokens, passes) });
  },
  onSpecDone: (requestId, result) => set({ spec: finishRun(get().spec, requestId, result) }),
  resetSpec: () => set({ spec: emptySpecRun() }),
});
