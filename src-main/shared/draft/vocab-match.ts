// Whether a draft model can propose tokens for a target: the two must mean the same thing by
// every token id. Pure: compares the tokenizers in the two GGUF headers.
import type { GgufHeader } from '../gguf/reader-types.js';
import { isArray, kvInteger, kvString } from '../gguf/metadata.js';

/** Why the draft's vocabulary differs from the target's, or null when they are the same. */
export function vocabMismatch(target: GgufHeader, draft: GgufHeader): string | null {
  const tm = kvString(target, 'tokenizer.ggml.model');
  const dm = kvString(draft, 'tokenizer.ggml.model');
  if (tm !== dm) return `the tokenizers differ (target ${tm ?? 'none'}, draft ${dm ?? 'none'})`;
  const tt = target.kvByKey.get('tokenizer.ggml.tokens')?.value;
  const dt = draft.kvByKey.get('tokenizer.ggml.tokens')?.value;
  if (!tt || !dt || !isArray(tt) || !isArray(dt)) return 'a model has no token list (tokenizer.ggml.tokens)';
  if (tt.items.length !== dt.items.length) return `the vocabularies differ in size (target ${tt.items.length} tokens, draft ${dt.items.length})`;
  for (let i = 0; i < tt.items.length; i++)
    if (tt.items[i] !== dt.items[i]) return `token ${i} differs (target ${JSON.stringify(tt.items[i])}, draft ${JSON.stringify(dt.items[i])})`;
  for (const key of ['tokenizer.ggml.bos_token_id', 'tokenizer.ggml.eos_token_id']) {
    const a = kvInteger(target, key);
    const b = kvInteger(draft, key);
    if (a !== b) return `${key} differs (target ${a ?? 'none'}, draft ${b ?? 'none'})`;
  }
  return null;
}
