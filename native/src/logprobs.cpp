#include "logprobs.h"

#include <algorithm>
#include <cmath>

namespace rf {

PositionLogprobs LogprobsAt(const float* logits, int n_vocab, llama_token chosen, int n_top) {
  float max = -INFINITY;
  for (int i = 0; i < n_vocab; i++) max = std::max(max, logits[i]);
  double sum = 0;
  for (int i = 0; i < n_vocab; i++) sum += std::exp(static_cast<double>(logits[i] - max));
  const float log_z = max + static_cast<float>(std::log(sum));
  PositionLogprobs out;
  out.chosen = {chosen, chosen >= 0 && chosen < n_vocab ? logits[chosen] - log_z : -INFINITY};
  const int k = std::max(0, std::min(n_top, n_vocab));
  if (k == 0) return out;
  std::vector<int32_t> ids(static_cast<size_t>(n_vocab));
  for (int i = 0; i < n_vocab; i++) ids[static_cast<size_t>(i)] = i;
  // Ties broken by id, so the order is the same on every run.
  std::partial_sort(ids.begin(), ids.begin() + k, ids.end(), [&](int32_t a, int32_t b) {
    return logits[a] != logits[b] ? logits[a] > logits[b] : a < b;
  });
  out.top.reserve(static_cast<size_t>(k));
  for (int i = 0; i < k; i++) out.top.push_back({ids[static_cast<size_t>(i)], logits[ids[static_cast<size_t>(i)]] - log_z});
  return out;
}

Napi::Object LogprobsToJs(Napi::Env env, const PositionLogprobs& p) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("id", p.chosen.id);
  o.Set("logprob", p.chosen.logprob);
  Napi::Array top = Napi::Array::New(env, p.top.size());
  for (size_t i = 0; i < p.top.size(); i++) {
    Napi::Object t = Napi::Object::New(env);
    t.Set("id", p.top[i].id);
    t.Set("logprob", p.top[i].logprob);
    top.Set(i, t);
  }
  o.Set("top", top);
  return o;
}

Napi::Array LogprobsToJs(Napi::Env env, const std::vector<PositionLogprobs>& ps) {
  Napi::Array a = Napi::Array::New(env, ps.size());
  for (size_t i = 0; i < ps.size(); i++) a.Set(i, LogprobsToJs(env, ps[i]));
  return a;
}

}  // namespace rf
