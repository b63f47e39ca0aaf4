// A chat or text completion request after validation: only what the server acts on, in the
// worker's terms. Pure types.
import type { ChatMessage, SamplingParams } from '../shared/worker-protocol.js';
import type { ToolRequest } from './tool-request.js';

export type ApiKind = 'chat' | 'completion';

export interface ApiGeneration {
  kind: ApiKind;
  /** The model the client named (resolved against the loaded one by the handler); null: none named. */
  model: string | null;
  /** chat: the turns, rendered with the model's own chat template. */
  messages?: ChatMessage[];
  /** chat: the tools the model may call (null or absent: none declared). */
  tools?: ToolRequest | null;
  /** completion: raw text the model continues (the first of `prompts`). */
  prompt?: string;
  /** completion: every prompt of a batch (text, or token ids of the model's vocabulary), each answered with `n` choices. */
  prompts?: (string | number[])[];
  /** completion: the (first) prompt as token ids, when it was given so. */
  promptTokens?: number[];
  /** Choices per prompt (OpenAI's `n`). */
  n: number;
  /** null: until the sequence's context is full. */
  maxTokens: number | null;
  sampling: SamplingParams;
  /** Generation ends (and the text is cut) where one of these first appears. */
  stop: string[];
  stream: boolean;
  /** stream_options.include_usage: one more chunk with the token counts before [DONE]. */
  includeUsage: boolean;
  /** completion: the answer starts with the prompt. */
  echo: boolean;
  /**
   * Log-probabilities asked for: each token's and this many of the most likely at its position
   * (chat: `logprobs: true` with `top_logprobs`; completions: `logprobs: N`); null: none.
   */
  logprobs: number | null;
  /** completion: text after the gap, filled in the middle through the model's FIM tokens; null: none. */
  suffix: string | null;
  /** Parameters the request gave that this server does not know or apply: accepted, named back to the client. */
  ignored: string[];
}
