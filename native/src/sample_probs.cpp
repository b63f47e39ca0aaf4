#include "sample_probs.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace rf {

namespace {

// The candidates after the chain ran, as log-probabilities: the chosen token's, and the n most
// likely with a probability above 0 (a token the samplers removed or a bias banned is not a
// possibility, as llama-server leaves such tokens out). Greedy sampling leaves no probabilities
// (it only picks the largest logit): its distribution is the chosen token at 1, as llama.cpp's
// temperature 0 makes it.
PositionLogprobs AfterSampling(const llama_token_data_array& cur, llama_token chosen, bool greedy, int n) {
  PositionLogprobs out;
  if (greedy) {
    out.chosen = {chosen, 0.0f};
    if (n > 0) out.top.push_back({chosen, 0.0f});
    return out;
  }
  std::vector<llama_token_data> kept;
  for (size_t i = 0; i < cur.size; i++)
    if (cur.data[i].p > 0) kept.push_back(cur.data[i]);
  out.chosen = {chosen, -INFINITY};
  for (const llama_token_data& t : kept)
    if (t.id == chosen) out.chosen.logprob = std::log(t.p);
  const size_t k = std::min(kept.size(), static_cast<size_t>(std::max(0, n)));
  // Ties broken by id, so the order is the same on every run.
  std::partial_sort(kept.begin(), kept.begin() + static_cast<std::ptrdiff_t>(k), kept.end(),
                    [](const llama_token_data& a, const llama_token_data& b) { return a.p != b.p ? a.p > b.p : a.id < b.id; });
  for (size_t i = 0; i < k; i++) out.top.push_back({kept[i].id, std::log(kept[i].p)});
  return out;
}

}  // namespace

llama_token SampleWithLogprobs(llama_sampler* smpl, llama_context* ctx, int32_t idx, const SamplingOpts& s, PositionLogprobs* lp) {
  const llama_vocab* vocab = llama_model_get_vocab(llama_get_model(ctx));
  const int n_vocab = llama_vocab_n_tokens(vocab);
  const float* logits = llama_get_logits_ith(ctx, idx);
  if (!s.post_sampling_probs || s.logprobs < 0) {
    llama_token tok = llama_sampler_sample(smpl, ctx, idx);
    if (s.logprobs >= 0) *lp = LogprobsAt(logits, n_vocab, tok, s.logprobs);
    return tok;
  }
  std::vector<llama_token_data> cur(static_cast<size_t>(n_vocab));
  for (llama_token id = 0; id < n_vocab; id++) cur[static_cast<size_t>(id)] = {id, logits[id], 0.0f};
  llama_token_data_array arr = {cur.data(), cur.size(), -1, false};
  llama_sampler_apply(smpl, &arr);
  // The chain always ends in a sampler that selects (greedy or dist), as llama_sampler_sample asserts too.
  GGML_ASSERT(arr.selected >= 0 && arr.selected < static_cast<int64_t>(arr.size));
  const llama_token tok = arr.data[arr.selected].id;
  llama_sampler_accept(smpl, tok);
  *lp = AfterSampling(arr, tok, s.temperature <= 0, s.logprobs);
  return tok;
}

}  // namespace rf
