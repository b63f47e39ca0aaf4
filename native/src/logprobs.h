// Log-probabilities of tokens, as llama-server reports them by default (post_sampling_probs
// false, and always on its OpenAI routes): the log-softmax of the model's raw logits at the
// position, before any sampler (penalties, temperature, top-k/p) touched them. Computed on the
// thread that decoded, handed to JS with the token.
#pragma once
#include <napi.h>

#include <cstdint>
#include <vector>

#include "llama.h"

namespace rf {

// The most log-probabilities a request may ask for per token (OpenAI's top_logprobs limit).
constexpr int kMaxTopLogprobs = 20;

struct TokenLogprob {
  int32_t id;
  float logprob;
};

// One position: the token that followed (sampled, or the prompt's next token) and its
// log-probability, then the `n` most likely tokens, most likely first.
struct PositionLogprobs {
  TokenLogprob chosen;
  std::vector<TokenLogprob> top;
};

PositionLogprobs LogprobsAt(const float* logits, int n_vocab, llama_token chosen, int n_top);

// {id, logprob, top: [{id, logprob}, ...]}
Napi::Object LogprobsToJs(Napi::Env env, const PositionLogprobs& p);
Napi::Array LogprobsToJs(Napi::Env env, const std::vector<PositionLogprobs>& ps);

}  // namespace rf
