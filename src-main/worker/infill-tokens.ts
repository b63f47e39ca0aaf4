// Fill-in-the-middle prompts as llama-server's /infill builds them from the vocabulary's FIM
// tokens (the repo-level pattern where the vocabulary has FIM_REP/FIM_SEP):
//   [FIM_REP]myproject\n [FIM_SEP]file\n extra ... [FIM_SEP]filename\n
//   [BOS] [FIM_PRE] prefix prompt [FIM_SUF] suffix [FIM_MID]
// The texts are tokenized without special tokens, so a FIM marker typed in a file stays text.
import type { InfillParts } from '../shared/worker-protocol.js';
import { WorkerError } from './worker-error.js';

export interface FimVocab {
  fim: { pre: number; suf: number; mid: number; rep: number; sep: number };
  bos: number;
  addBos: boolean;
}

/** llama-server's words for a vocabulary without the three FIM tokens; null when it has them. */
export function fimMissing(v: Pick<FimVocab, 'fim'>): string | null {
  const missing = [v.fim.pre < 0 ? 'prefix token is missing. ' : '', v.fim.suf < 0 ? 'suffix token is missing. ' : '', v.fim.mid < 0 ? 'middle token is missing. ' : ''].join('');
  return missing ? `Infill is not supported by this model: ${missing}` : null;
}

// Chunks of extra context without FIM_SEP are separated by this text.
const CHUNK_SEPARATOR = '\n\n--- snippet ---\n\n';

export function infillTokens(v: FimVocab, tokenize: (text: string) => number[], parts: InfillParts, prompt: string): number[] {
  const missing = fimMissing(v);
  if (missing) throw new WorkerError('INFILL_UNSUPPORTED', missing);
  const extra: number[] = [];
  if (v.fim.rep >= 0) extra.push(v.fim.rep, ...tokenize('myproject\n'));
  for (const chunk of parts.extra) {
    if (v.fim.sep >= 0) extra.push(v.fim.sep, ...tokenize(`${chunk.filename ?? 'tmp'}\n`));
    else extra.push(...tokenize(CHUNK_SEPARATOR));
    extra.push(...tokenize(chunk.text));
  }
  if (v.fim.sep >= 0) extra.push(v.fim.sep, ...tokenize('filename\n'));
  const bos = v.addBos && v.bos >= 0 ? [v.bos] : [];
  return [...extra, ...bos, v.fim.pre, ...tokenize(parts.prefix), ...tokenize(prompt), v.fim.suf, ...tokenize(parts.suffix), v.fim.mid];
}
