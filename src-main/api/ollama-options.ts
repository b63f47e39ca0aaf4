// Ollama's `options` object (its Modelfile parameters) for /api/chat and /api/generate: the
// ones that shape the text are honoured with Ollama's defaults (a client written for Ollama
// expects its temperature 0.8, top_k 40, top_p 0.9, repeat_penalty 1.1); the ones that only
// tune loading or speed (threads, GPU layers, batch, mmap) are type-checked and ignored, since
// the loaded model's settings are the server's; samplers we do not run (typical_p, tfs_z,
// mirostat) are type-checked and, away from their neutral value, ignored and named; an option
// Ollama does not have is ignored and named too (Ollama logs and ignores it). A wrong type is
// still a 400. Pure.
import type { SamplingParams } from '../shared/worker-protocol.js';
import { LIMITS } from '../shared/settings/run-settings.js';
import { badRequest } from './errors.js';
import { given, optBool, optInt, optNumber, unknownNames, type Body } from './check-value.js';
import { MAX_STOP_LENGTH, MAX_STOP_STRINGS } from './validate-request.js';
import { generationDefaults, RANDOM_SEED, type GenerationDefaults } from './generation-defaults.js';
import type { ApiSamplingDefaults } from '../shared/api-defaults.js';

export interface OllamaOptions {
  sampling: SamplingParams;
  /** null: until the sequence's context is full (num_predict -1 or -2, or not given). */
  maxTokens: number | null;
  stop: string[];
  /** The context the client asked for; null when not given. */
  numCtx: number | null;
}

const HONOURED = ['seed', 'num_predict', 'top_k', 'top_p', 'min_p', 'temperature', 'repeat_penalty', 'repeat_last_n', 'stop', 'num_ctx'];
/** Loading and speed knobs: the loaded model's own settings hold. */
const LOAD_ONLY_INTS = ['num_keep', 'num_batch', 'num_gpu', 'main_gpu', 'num_thread'];
const LOAD_ONLY_BOOLS = ['numa', 'low_vram', 'f16_kv', 'logits_all', 'vocab_only', 'use_mmap', 'use_mlock', 'embedding_only', 'penalize_newline'];
/** Samplers we do not run, with the value at which they change nothing. */
const NEUTRAL: Record<string, (v: unknown) => boolean> = {
  typical_p: (v) => v === 1,
  tfs_z: (v) => v === 1,
  mirostat: (v) => v === 0,
};
const CHECKED_NUMBERS: Record<string, [number, number]> = {
  // As on the OpenAI side: checked, not applied (they do not change which text is possible).
  presence_penalty: [-2, 2],
  frequency_penalty: [-2, 2],
  // Only read by mirostat, which is off.
  mirostat_tau: [0, 100],
  mirostat_eta: [0, 100],
};

export const OLLAMA_OPTIONS = new Set([...HONOURED, ...LOAD_ONLY_INTS, ...LOAD_ONLY_BOOLS, ...Object.keys(NEUTRAL), ...Object.keys(CHECKED_NUMBERS)]);

/** Ollama's defaults where the request gives no value. */
export const OLLAMA_DEFAULTS = { temperature: 0.8, topK: 40, topP: 0.9, minP: 0, repeatPenalty: 1.1, repeatLastN: 64 } as const;

/** Ollama's defaults as the base the server's own are laid over. */
const OLLAMA_GENERATION: GenerationDefaults = { sampling: { ...OLLAMA_DEFAULTS, seed: RANDOM_SEED }, maxTokens: null };

const named = (o: Body): Body => {
  // Messages name the option as clients write it (options.temperature).
  const out: Body = {};
  for (const [k, v] of Object.entries(o)) out[`options.${k}`] = v;
  return out;
};

function checkStop(v: unknown): string[] {
  if (!given(v)) return [];
  const list = typeof v === 'string' ? [v] : v;
  if (!Array.isArray(list)) throw badRequest("'options.stop' must be an array of strings", 'options.stop', 'invalid_type');
  if (list.length > MAX_STOP_STRINGS) throw badRequest(`'options.stop' may hold at most ${MAX_STOP_STRINGS} strings, got ${list.length}`, 'options.stop', 'invalid_value');
  return list.map((s) => {
    if (typeof s !== 'string') throw badRequest("'options.stop' must be an array of strings", 'options.stop', 'invalid_type');
    if (s.length === 0 || s.length > MAX_STOP_LENGTH) throw badRequest(`each stop string must have 1 to ${MAX_STOP_LENGTH} characters`, 'options.stop', 'invalid_value');
    return s;
  });
}

function checkSeed(b: Body, fallback: number): number {
  const v = optInt(b, 'options.seed', -1, RANDOM_SEED - 1);
  // -1 means a random seed, as Ollama's default does; unset, the server's default (random unless set).
  if (v === null) return fallback;
  return v === -1 ? RANDOM_SEED : v;
}

/**
 * `options` of a request (undefined or null: all defaults: the server's where `serve` was given
 * one, else Ollama's); options not applied are added to `ignored`.
 */
export function checkOllamaOptions(v: unknown, ignored: string[], server?: ApiSamplingDefaults): OllamaOptions {
  const d = generationDefaults(server, OLLAMA_GENERATION);
  if (given(v) && (typeof v !== 'object' || Array.isArray(v))) throw badRequest("'options' must be an object", 'options', 'invalid_type');
  const raw = (given(v) ? v : {}) as Body;
  ignored.push(...unknownNames(raw, OLLAMA_OPTIONS, 'options.'));
  const b = named(raw);
  for (const k of LOAD_ONLY_INTS) optInt(b, `options.${k}`, -1, 1 << 20);
  for (const k of LOAD_ONLY_BOOLS) optBool(b, `options.${k}`);
  for (const [k, [lo, hi]] of Object.entries(CHECKED_NUMBERS)) optNumber(b, `options.${k}`, lo, hi);
  for (const [k, isNeutral] of Object.entries(NEUTRAL)) {
    const x = optNumber(b, `options.${k}`, 0, 100);
    if (x !== null && !isNeutral(x)) ignored.push(`options.${k}`);
  }
  // -1: until the end of text; -2: fill the context. Both are "no limit" here.
  const predict = optInt(b, 'options.num_predict', -2, LIMITS.maxTokens.max);
  if (predict === 0) throw badRequest("'options.num_predict' must be at least 1 (or -1 / -2 for no limit)", 'options.num_predict', 'invalid_value');
  const numCtx = optInt(b, 'options.num_ctx', 1, 1 << 24);
  return {
    sampling: {
      temperature: optNumber(b, 'options.temperature', 0, 2) ?? d.sampling.temperature,
      topK: optInt(b, 'options.top_k', LIMITS.topK.min, LIMITS.topK.max) ?? d.sampling.topK,
      topP: optNumber(b, 'options.top_p', 0, 1) ?? d.sampling.topP,
      minP: optNumber(b, 'options.min_p', 0, 1) ?? d.sampling.minP,
      repeatPenalty: optNumber(b, 'options.repeat_penalty', 0, 10) ?? d.sampling.repeatPenalty,
      // Ollama: -1 = the whole context, 0 = off.
      repeatLastN: optInt(b, 'options.repeat_last_n', -1, 1 << 20) ?? d.sampling.repeatLastN,
      seed: checkSeed(b, d.sampling.seed),
    },
    maxTokens: predict === null ? d.maxTokens : predict < 0 ? null : predict,
    stop: checkStop(b['options.stop']),
    numCtx,
  };
}
