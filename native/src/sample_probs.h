// Sampling one token together with the log-probabilities a request asked for: by default those
// of the raw logits (logprobs.h, llama-server's default), or with post_sampling_probs the ones
// the samplers left (llama-server's post_sampling_probs: after the bias, top-k/p, min-p and
// temperature, the distribution the token was drawn from). llama_sampler_sample keeps its
// candidates to itself, so the second kind samples the same way it does (the logits of the
// output through the chain, the token accepted) and reads the candidates afterwards.
#pragma once
#include "llama.h"
#include "logprobs.h"
#include "sampling.h"

namespace rf {

// The token sampled at output `idx`; when s.logprobs >= 0, *lp gets it and the s.logprobs most
// likely tokens with their log-probabilities (of the raw logits, or after the samplers).
llama_token SampleWithLogprobs(llama_sampler* smpl, llama_context* ctx, int32_t idx, const SamplingOpts& s, PositionLogprobs* lp);

}  // namespace rf
