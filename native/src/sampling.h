// Sampling options as they cross from JS, checked at the native edge (a huge repeat window is an
// allocation of gigabytes inside llama.cpp, a negative or fractional seed undefined behaviour),
// and the llama.cpp sampler chain they build.
#pragma once
#include <napi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "llama.h"

namespace rf {

struct SamplingOpts {
  double temperature = 0.8;
  int top_k = 40;
  double top_p = 0.95;
  double min_p = 0.05;
  uint32_t seed = 0xFFFFFFFFu;
  double repeat_penalty = 1.0;
  int repeat_last_n = 64;
  int max_tokens = 128;
  // GBNF the output must follow (grammar.h); empty = none.
  std::string grammar;
  // Log-probabilities reported with each generated token (logprobs.h): -1 none, else the
  // sampled token's and this many of the most likely.
  int logprobs = -1;
  // The prompt's tokens' log-probabilities too (every prompt position decoded with logits,
  // none of the KV cache reused): what an echo of the prompt with logprobs needs.
  bool prompt_logprobs = false;
  // Added to a token's logit before any other sampler (-inf: never sampled), as llama-server's
  // logit_bias and ignore_eos (every end-of-generation token at -inf) do.
  std::vector<llama_logit_bias> logit_bias;
  // The reported probabilities are the ones the samplers left (llama-server's
  // post_sampling_probs), not the raw logits' log-softmax.
  bool post_sampling_probs = false;
};

// Reads the options from `o` (missing fields keep their defaults). Returns "" or what is wrong.
std::string ParseSampling(const Napi::Object& o, SamplingOpts* out);

// The chain for `s`, the grammar first when there is one; nullptr only when the grammar does not
// parse (checked with CheckGrammar before a generation is queued, so not expected).
llama_sampler* BuildSampler(const SamplingOpts& s, const llama_vocab* vocab);

// A sampler chain's one owner: freed with llama_sampler_free when it goes.
struct SamplerFree {
  void operator()(llama_sampler* s) const {
    if (s) llama_sampler_free(s);
  }
};
using SamplerPtr = std::unique_ptr<llama_sampler, SamplerFree>;

}  // namespace rf
