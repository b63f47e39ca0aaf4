// Log-probabilities in each API's shape, from the worker's (token ids with their bytes):
// OpenAI chat (`choices[].logprobs.content`), OpenAI's legacy completions (`tokens`,
// `token_logprobs`, `top_logprobs`, `text_offset`), llama-server's `completion_probabilities`
// and Ollama's `logprobs`. Pure.
import type { PositionLogprobs, PromptLogprobs, TokenLogprob } from '../shared/worker-protocol.js';

const utf8 = new TextDecoder('utf-8');

/** A token's text: its bytes as UTF-8, a piece of a split character shown as U+FFFD (its bytes stay exact). */
export function tokenText(t: { bytes: number[] }): string {
  return utf8.decode(Uint8Array.from(t.bytes));
}

export interface ChatTokenLogprob {
  token: string;
  logprob: number;
  bytes: number[];
  top_logprobs: { token: string; logprob: number; bytes: number[] }[];
}

const alt = (t: TokenLogprob) => ({ token: tokenText(t), logprob: t.logprob, bytes: t.bytes });

/** One entry of OpenAI chat's logprobs.content (and of Ollama's logprobs). */
export function chatEntry(p: PositionLogprobs): ChatTokenLogprob {
  return { ...alt(p), top_logprobs: p.top.map(alt) };
}

/** OpenAI chat's choices[].logprobs. */
export function chatLogprobs(ps: PositionLogprobs[]): { content: ChatTokenLogprob[]; refusal: null } {
  return { content: ps.map(chatEntry), refusal: null };
}

export interface LegacyLogprobs {
  tokens: string[];
  /** null for the prompt's first token (nothing comes before it). */
  token_logprobs: (number | null)[];
  top_logprobs: (Record<string, number> | null)[];
  /** Each token's offset in the text the answer shows (with echo, from the prompt's start). */
  text_offset: number[];
}

/**
 * OpenAI's legacy completions logprobs. `startOffset`: where the first token's text starts in
 * the answer (0 with echo, else the prompt's length, as OpenAI counts).
 */
export function legacyLogprobs(ps: PositionLogprobs[], startOffset: number, echoed?: PromptLogprobs): LegacyLogprobs {
  const out: LegacyLogprobs = { tokens: [], token_logprobs: [], top_logprobs: [], text_offset: [] };
  let offset = startOffset;
  const push = (text: string, logprob: number | null, top: Record<string, number> | null): void => {
    out.tokens.push(text);
    out.token_logprobs.push(logprob);
    out.top_logprobs.push(top);
    out.text_offset.push(offset);
    offset += text.length;
  };
  const topOf = (p: PositionLogprobs): Record<string, number> => Object.fromEntries(p.top.map((t) => [tokenText(t), t.logprob]));
  if (echoed) {
    push(tokenText({ bytes: echoed.firstBytes }), null, null);
    for (const p of echoed.positions) push(tokenText(p), p.logprob, topOf(p));
  }
  for (const p of ps) push(tokenText(p), p.logprob, topOf(p));
  return out;
}

/**
 * llama-server's completion_probabilities: log-probabilities by default; with post_sampling_probs
 * (the worker then reports the distribution after the samplers) probabilities, as it names them.
 */
export function llamaProbabilities(ps: PositionLogprobs[], postSampling = false): object[] {
  if (postSampling) {
    const one = (t: TokenLogprob) => ({ id: t.id, token: tokenText(t), bytes: t.bytes, prob: Math.exp(t.logprob) });
    return ps.map((p) => ({ ...one(p), top_probs: p.top.map(one) }));
  }
  const one = (t: TokenLogprob) => ({ id: t.id, token: tokenText(t), bytes: t.bytes, logprob: t.logprob });
  return ps.map((p) => ({ ...one(p), top_logprobs: p.top.map(one) }));
}

/**
 * A choice's log-probabilities as they come (stream chunk by chunk), in its kind's shape:
 * chat's `{content, refusal}` or the legacy completions object, whose text offsets run on from
 * chunk to chunk (from `startOffset`: the prompt's length, or 0 when the prompt is echoed).
 */
export class ChoiceLogprobs {
  readonly all: PositionLogprobs[] = [];
  private offset: number;

  constructor(
    private readonly kind: 'chat' | 'completion',
    private readonly startOffset: number,
  ) {
    this.offset = startOffset;
  }

  /** A stream chunk's logprobs, for the tokens it carries. */
  chunk(ps: PositionLogprobs[]): object {
    this.all.push(...ps);
    if (this.kind === 'chat') return chatLogprobs(ps);
    const out = legacyLogprobs(ps, this.offset);
    this.offset += out.tokens.reduce((n, t) => n + t.length, 0);
    return out;
  }

  /** The whole answer's, with the echoed prompt's first. */
  whole(echoed?: PromptLogprobs): object {
    return this.kind === 'chat' ? chatLogprobs(this.all) : legacyLogprobs(this.all, this.startOffset, echoed);
  }
}
