// What a generation is asked and answers with, between a host and the inference worker
// (worker-protocol.ts carries the requests and events that hold these): sampling, chat turns and
// tools, log-probabilities, fill-in-the-middle, tokenizing, embeddings, the token stream and the
// timings. One source of truth for both sides.

export interface SamplingParams {
  /** 0 = greedy. */
  temperature: number;
  topK: number;
  topP: number;
  minP: number;
  seed: number;
  repeatPenalty: number;
  repeatLastN: number;
  /** GBNF the output must follow (llama.cpp's grammar sampler); absent = free text. */
  grammar?: string;
  /** Added to tokens' logits before any other sampler; absent = none. */
  logitBias?: RequestedBias[];
  /**
   * Generation past the end of text: the worker biases every end-of-generation token of the
   * vocabulary to -Infinity (llama-server's ignore_eos) and adds them to `logitBias`.
   */
  ignoreEos?: boolean;
}

/** A bias added to one token's logit; -Infinity: the token is never sampled. */
export interface LogitBias {
  token: number;
  bias: number;
}

/**
 * A bias for a token, or for every token of a text (tokenized by the worker as plain text, without
 * BOS or special tokens, as llama-server reads logit_bias's strings).
 */
export type RequestedBias = LogitBias | { text: string; bias: number };

export interface ChatMessage {
  /** 'tool': a tool's result, sent back to the model (only on the tool-call path, see GenerateParams.tools). */
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  /** assistant: the calls it made (rendered by the model's own template). */
  toolCalls?: ToolCallMessage[];
  /** tool: the id of the call this answers. */
  toolCallId?: string;
  /** assistant: its earlier reasoning (llama-server's reasoning_content), handed to Jinja templates that render it (Qwen3's). */
  reasoningContent?: string;
}

export interface ToolCallMessage {
  id: string;
  name: string;
  /** JSON text of the arguments, as OpenAI carries them. */
  arguments: string;
}

/** A function the model may call (OpenAI's tools[].function). */
export interface ToolSpec {
  name: string;
  description?: string;
  /** A JSON schema of the arguments. */
  parameters?: unknown;
}

/**
 * A token at a position and its log-probability: the natural log of the model's softmax over its
 * raw logits there (llama-server's default, and what its OpenAI routes report), before any
 * sampler touched them.
 */
export interface TokenLogprob {
  id: number;
  /** The token's text as UTF-8 bytes (a piece of a character stays a piece). */
  bytes: number[];
  logprob: number;
}

/** A position's token with the most likely tokens there, most likely first. */
export interface PositionLogprobs extends TokenLogprob {
  top: TokenLogprob[];
}

/** A prompt's tokens with their log-probabilities: the first has none (nothing comes before it). */
export interface PromptLogprobs {
  firstBytes: number[];
  /** Tokens 1..n-1. */
  positions: PositionLogprobs[];
}

/** Fill-in-the-middle: the prompt built from the vocabulary's FIM tokens (llama-server's /infill). */
export interface InfillParts {
  prefix: string;
  suffix: string;
  /** More context before the prefix (other files of the project). */
  extra: { filename?: string; text: string }[];
}

/** How many of the most likely tokens a request may ask for at each position. */
export const MAX_TOP_LOGPROBS = 20;

export interface GenerateParams {
  /** Raw prompt (tokenized with BOS as the model asks). Ignored when `messages` is set. */
  prompt?: string;
  /** A prompt given as token ids of this model's vocabulary (OpenAI's token-id prompt): used as they are, instead of `prompt`. */
  promptTokens?: number[];
  /** Chat turns rendered with the model's own chat template. */
  messages?: ChatMessage[];
  /**
   * Tools the model may call. When set (or when a message is a tool call or a tool's result)
   * the worker renders `messages` with the model's Jinja chat template itself (llama.cpp's
   * built-in template matcher knows nothing of tools); [] renders the tool turns with no tools.
   */
  tools?: ToolSpec[];
  /** Fill-in-the-middle around `prompt` (which then is the start of the middle). */
  infill?: InfillParts;
  maxTokens: number;
  sampling: SamplingParams;
  /** Each generated token's log-probability and this many (0..MAX_TOP_LOGPROBS) of the most likely; absent: none. */
  logprobs?: number;
  /** The prompt's tokens' log-probabilities too (each with `logprobs` alternatives); the KV cache is not reused. */
  promptLogprobs?: boolean;
  /**
   * The generated tokens' log-probabilities are those of the distribution the token was drawn
   * from, after the samplers (llama-server's post_sampling_probs: only the tokens the samplers
   * left, and greedy sampling's one token at 0), not the raw logits'. The prompt's stay raw.
   */
  postSamplingProbs?: boolean;
}

/**
 * How often the loaded model, fed another run's tokens (teacher forcing), picks that run's next
 * token greedily: `same` of `positions` (each token of the continuation is one position).
 */
export interface AgreementResult {
  positions: number;
  same: number;
}

/** A text's ids in the loaded vocabulary and each id's text. */
export interface TokenizeResult {
  tokens: number[];
  pieces: string[];
}

/**
 * Chat turns to render as a prompt (llama-server's /apply-template): rendered exactly as a
 * generation with the same `messages` and `tools` renders them, optionally without the opening
 * of the assistant's turn.
 */
export interface ChatPromptParams {
  messages: ChatMessage[];
  tools?: ToolSpec[];
  addGenerationPrompt: boolean;
}

/** Turns rendered: the prompt text, and the number of tokens a generation given those turns would decode from it. */
export interface ChatPromptResult {
  prompt: string;
  tokens: number;
}

/**
 * A text to embed, or its token ids in the model's vocabulary (OpenAI's token-id input), or ids
 * and texts mixed in one sequence (llama-server's prompts: each text tokenized where it stands).
 */
export type EmbedInput = string | (number | string)[];

/**
 * How a text's hidden states become its embedding: their mean (one vector per text), or none
 * (llama-server's --pooling none: one vector per token).
 */
export type EmbedPooling = 'mean' | 'none';

/** Mean-pooled hidden states of each text (n_embd floats each, not normalized), and their tokens in all. */
export interface EmbedResult {
  vectors: number[][];
  tokens: number;
  /** llama_decode calls made: one per text (each decoded whole, from an empty cache). */
  decodes: number;
  /** Pooling none: each text's vectors, one per token (`vectors` is then empty). */
  tokenVectors?: number[][][];
}

export interface TokenEvent {
  index: number;
  tokenId: number;
  /** Text completed by this token (UTF-8 safe: bytes of a split character are held back). */
  text: string;
  /** Milliseconds since generation started. */
  tMs: number;
  /** Speculative decoding: on the first token of each pass, what the pass drafted and kept. */
  pass?: { drafted: number; accepted: number };
  /** GenerateParams.logprobs: this token's log-probability and the most likely there. */
  logprobs?: PositionLogprobs;
}

export type StopReason = 'eos' | 'max_tokens' | 'cancelled' | 'ctx_full';

export interface GenerationTimings {
  promptMs: number;
  ttftMs: number;
  decodeMs: number;
  promptTokS: number;
  decodeTokS: number;
  perTokenMs: number[];
}
