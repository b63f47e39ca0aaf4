#include "sampling.h"

#include <cmath>

#include "grammar.h"
#include "logprobs.h"

namespace rf {

namespace {

// A number field: absent keeps *out; present must be finite, within [lo, hi], and an integer
// when `integer`.
bool Field(const Napi::Object& o, const char* key, double lo, double hi, bool integer, double* out, std::string* err) {
  if (!o.Has(key) || o.Get(key).IsUndefined()) return true;
  Napi::Value v = o.Get(key);
  double d = v.IsNumber() ? v.As<Napi::Number>().DoubleValue() : NAN;
  if (!std::isfinite(d) || d < lo || d > hi || (integer && std::floor(d) != d)) {
    *err = std::string(key) + " must be " + (integer ? "an integer" : "a number") + " from " + std::to_string(lo) + " to " + std::to_string(hi);
    return false;
  }
  *out = d;
  return true;
}

// The most biases one request may carry: llama.cpp applies each on every sampled token.
constexpr uint32_t kMaxLogitBias = 1 << 20;

// `logitBias`: [{token, bias}], a token id (range-checked against the vocabulary by
// BuildSampler's caller) and a finite bias or -Infinity (the token is never sampled).
std::string ParseLogitBias(const Napi::Object& o, std::vector<llama_logit_bias>* out) {
  if (!o.Has("logitBias") || o.Get("logitBias").IsUndefined()) return "";
  if (!o.Get("logitBias").IsArray()) return "logitBias must be an array of {token, bias}";
  Napi::Array a = o.Get("logitBias").As<Napi::Array>();
  if (a.Length() > kMaxLogitBias) return "logitBias may hold at most " + std::to_string(kMaxLogitBias) + " entries";
  out->clear();
  for (uint32_t i = 0; i < a.Length(); i++) {
    Napi::Value e = a.Get(i);
    if (!e.IsObject()) return "logitBias entries must be {token, bias}";
    Napi::Object eo = e.As<Napi::Object>();
    double t = eo.Get("token").IsNumber() ? eo.Get("token").As<Napi::Number>().DoubleValue() : NAN;
    double b = eo.Get("bias").IsNumber() ? eo.Get("bias").As<Napi::Number>().DoubleValue() : NAN;
    if (!std::isfinite(t) || t < 0 || t > INT32_MAX || std::floor(t) != t) return "logitBias token must be a token id";
    if (std::isnan(b) || b == INFINITY) return "logitBias bias must be a finite number or -Infinity";
    out->push_back({static_cast<llama_token>(t), static_cast<float>(b)});
  }
  return "";
}

}  // namespace

std::string ParseSampling(const Napi::Object& o, SamplingOpts* s) {
  std::string err;
  double temperature = s->temperature, top_k = s->top_k, top_p = s->top_p, min_p = s->min_p, seed = s->seed,
         repeat_penalty = s->repeat_penalty, repeat_last_n = s->repeat_last_n, max_tokens = s->max_tokens, logprobs = s->logprobs;
  if (!Field(o, "temperature", 0, 100, false, &temperature, &err) || !Field(o, "topK", 0, 1 << 20, true, &top_k, &err) ||
      !Field(o, "topP", 0, 1, false, &top_p, &err) || !Field(o, "minP", 0, 1, false, &min_p, &err) ||
      !Field(o, "seed", 0, 4294967295.0, true, &seed, &err) || !Field(o, "repeatPenalty", 0, 100, false, &repeat_penalty, &err) ||
      !Field(o, "repeatLastN", -1, 1 << 20, true, &repeat_last_n, &err) || !Field(o, "maxTokens", 0, 1 << 20, true, &max_tokens, &err) ||
      !Field(o, "logprobs", -1, kMaxTopLogprobs, true, &logprobs, &err))
    return err;
  s->logprobs = static_cast<int>(logprobs);
  if (o.Has("promptLogprobs") && !o.Get("promptLogprobs").IsUndefined()) {
    if (!o.Get("promptLogprobs").IsBoolean()) return "promptLogprobs must be a boolean";
    s->prompt_logprobs = o.Get("promptLogprobs").As<Napi::Boolean>().Value();
  }
  if (o.Has("postSamplingProbs") && !o.Get("postSamplingProbs").IsUndefined()) {
    if (!o.Get("postSamplingProbs").IsBoolean()) return "postSamplingProbs must be a boolean";
    s->post_sampling_probs = o.Get("postSamplingProbs").As<Napi::Boolean>().Value();
  }
  if (std::string bias_err = ParseLogitBias(o, &s->logit_bias); !bias_err.empty()) return bias_err;
  s->temperature = temperature;
  s->top_k = static_cast<int>(top_k);
  s->top_p = top_p;
  s->min_p = min_p;
  s->seed = static_cast<uint32_t>(seed);
  s->repeat_penalty = repeat_penalty;
  s->repeat_last_n = static_cast<int>(repeat_last_n);
  s->max_tokens = static_cast<int>(max_tokens);
  if (o.Has("grammar") && !o.Get("grammar").IsUndefined() && !o.Get("grammar").IsNull()) {
    Napi::Value g = o.Get("grammar");
    if (!g.IsString()) return "grammar must be a string (GBNF)";
    s->grammar = g.As<Napi::String>().Utf8Value();
    if (s->grammar.size() > kMaxGrammarBytes) return "grammar must be at most " + std::to_string(kMaxGrammarBytes) + " bytes";
  }
  return "";
}

llama_sampler* BuildSampler(const SamplingOpts& s, const llama_vocab* vocab) {
  const int n_vocab = llama_vocab_n_tokens(vocab);
  llama_sampler* chain = llama_sampler_chain_init(llama_sampler_chain_default_params());
  // Before the grammar and the rest, as llama.cpp's common sampler puts it: a banned token is
  // gone for every later sampler. Ids outside the vocabulary are dropped (llama.cpp would index
  // past its candidates); the worker refuses them before they come here.
  std::vector<llama_logit_bias> bias;
  for (const llama_logit_bias& b : s.logit_bias)
    if (b.token >= 0 && b.token < n_vocab) bias.push_back(b);
  if (!bias.empty()) llama_sampler_chain_add(chain, llama_sampler_init_logit_bias(n_vocab, static_cast<int32_t>(bias.size()), bias.data()));
  // Then, so every later sampler sees only the tokens the grammar allows.
  if (!s.grammar.empty()) {
    llama_sampler* g = InitGuardedGrammar(vocab, s.grammar);
    if (!g) {
      llama_sampler_free(chain);
      return nullptr;
    }
    llama_sampler_chain_add(chain, g);
  }
  if (s.repeat_penalty != 1.0)
    llama_sampler_chain_add(chain, llama_sampler_init_penalties(n_vocab, s.repeat_last_n, static_cast<float>(s.repeat_penalty), 0.0f, 0.0f));
  if (s.temperature <= 0) {
    llama_sampler_chain_add(chain, llama_sampler_init_greedy());
    return chain;
  }
  if (s.top_k > 0) llama_sampler_chain_add(chain, llama_sampler_init_top_k(s.top_k));
  if (s.top_p < 1.0) llama_sampler_chain_add(chain, llama_sampler_init_top_p(static_cast<float>(s.top_p), 1));
  if (s.min_p > 0) llama_sampler_chain_add(chain, llama_sampler_init_min_p(static_cast<float>(s.min_p), 1));
  llama_sampler_chain_add(chain, llama_sampler_init_temp(static_cast<float>(s.temperature)));
  llama_sampler_chain_add(chain, llama_sampler_init_dist(s.seed));
  return chain;
}

}  // namespace rf
