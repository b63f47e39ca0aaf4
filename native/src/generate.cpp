#include "generate.h"

#include <algorithm>

#include "clock.h"
#include "common.h"
#include "context.h"
#include "grammar.h"
#include "logprobs.h"
#include "sample_probs.h"
#include "model.h"
#include "residency.h"
#include "speculative.h"

namespace rf {

namespace {

// One llama_decode of `batch` (`k` tokens) under the stream schedule's hooks.
bool DecodeOne(Context* c, const llama_batch& batch, int k, int phase, std::string* err) {
  Residency* r = c->residency();
  if (r) r->OnDecodeStart(k, phase);
  int rc = llama_decode(c->get(), batch);
  if (r) r->OnDecodeEnd();
  if (r && rc == 0) {
    std::string serr = r->StreamError();
    if (!serr.empty()) {
      *err = serr;
      return false;
    }
  }
  if (rc != 0) {
    std::string why = LogErrorsSinceMark();
    *err = "llama_decode failed (" + std::to_string(rc) + ")" + (why.empty() ? "" : ": " + why);
    return false;
  }
  return true;
}

}  // namespace

bool DecodeTokens(Context* c, const llama_token* toks, int n, int n_batch, std::string* err, int phase) {
  for (int i = 0; i < n; i += n_batch) {
    int k = std::min(n_batch, n - i);
    llama_batch batch = llama_batch_get_one(const_cast<llama_token*>(toks + i), k);
    if (!DecodeOne(c, batch, k, phase, err)) return false;
    c->cached().insert(c->cached().end(), toks + i, toks + i + k);
  }
  return true;
}

bool DecodePromptLogprobs(Context* c, const llama_token* toks, int n, int n_batch, int n_top,
                          std::vector<PositionLogprobs>* out, std::string* err) {
  const int n_vocab = llama_vocab_n_tokens(c->model()->vocab());
  llama_batch batch = llama_batch_init(n_batch, 0, 1);
  bool ok = true;
  const int start = static_cast<int>(c->cached().size());
  for (int i = 0; i < n && ok; i += n_batch) {
    int k = std::min(n_batch, n - i);
    batch.n_tokens = k;
    for (int j = 0; j < k; j++) {
      batch.token[j] = toks[i + j];
      batch.pos[j] = start + i + j;
      batch.n_seq_id[j] = 1;
      batch.seq_id[j][0] = 0;
      batch.logits[j] = true;
    }
    ok = DecodeOne(c, batch, k, 0, err);
    if (!ok) break;
    c->cached().insert(c->cached().end(), toks + i, toks + i + k);
    // Position p's logits predict token p + 1; the last position's are the first sample's.
    for (int j = 0; j < k && i + j + 1 < n; j++) out->push_back(LogprobsAt(llama_get_logits_ith(c->get(), j), n_vocab, toks[i + j + 1], n_top));
  }
  llama_batch_free(batch);
  return ok;
}

namespace {

struct TokenMsg {
  int index;
  int32_t id;
  std::string piece;
  double t_ms;
  bool has_pass = false;
  SpecPass pass;  // on the first token of a speculative pass
  bool has_logprobs = false;
  PositionLogprobs logprobs;
};

class GenerateWorker : public Napi::AsyncWorker {
 public:
  GenerateWorker(Napi::Env env, Context* ctx, Napi::Object self, std::vector<llama_token> prompt, int max_tokens,
                 SamplingOpts sampling, Napi::Function on_token)
      : Napi::AsyncWorker(env),
        deferred_(Napi::Promise::Deferred::New(env)),
        ctx_(ctx),
        prompt_(std::move(prompt)),
        max_tokens_(max_tokens),
        sampling_(sampling) {
    self_ref_ = Napi::Persistent(self);
    if (!on_token.IsEmpty()) {
      tsfn_ = Napi::ThreadSafeFunction::New(env, on_token, "ramforge-tokens", 0, 1);
      has_tsfn_ = true;
    }
  }
  ~GenerateWorker() override {
    if (has_tsfn_) tsfn_.Release();
  }
  Napi::Promise Promise() { return deferred_.Promise(); }

  void Execute() override {
    LogMark();
    llama_context* lctx = ctx_->get();
    const llama_vocab* vocab = ctx_->model()->vocab();
    const int n_ctx = static_cast<int>(llama_n_ctx(lctx));
    const int n_batch = static_cast<int>(llama_n_batch(lctx));
    double t0 = NowMs();
    if (static_cast<int>(prompt_.size()) >= n_ctx) {
      SetError("prompt has " + std::to_string(prompt_.size()) + " tokens; the context holds " + std::to_string(n_ctx));
      return;
    }
    // Reuse the KV cache for the longest common prefix with what is already decoded (the earlier
    // turns of a chat); at least one prompt token is decoded so there are fresh logits.
    auto& cached = ctx_->cached();
    size_t keep = 0;
    // The prompt's log-probabilities need the logits of every prompt position: nothing reused.
    while (!sampling_.prompt_logprobs && keep < cached.size() && keep + 1 < prompt_.size() && cached[keep] == prompt_[keep]) keep++;
    llama_memory_seq_rm(llama_get_memory(lctx), 0, static_cast<llama_pos>(keep), -1);
    cached.resize(keep);
    reused_ = static_cast<int>(keep);

    std::string err;
    const int n_rest = static_cast<int>(prompt_.size() - keep);
    if (sampling_.prompt_logprobs ? !DecodePromptLogprobs(ctx_, prompt_.data(), n_rest, n_batch, std::max(0, sampling_.logprobs), &prompt_logprobs_, &err)
                                  : !DecodeTokens(ctx_, prompt_.data() + keep, n_rest, n_batch, &err, 0)) {
      SetError(err);
      return;
    }
    // Both prompt paths decode n_batch tokens per llama_decode.
    decodes_ += (n_rest + n_batch - 1) / n_batch;
    prompt_ms_ = NowMs() - t0;
    if (Residency* r = ctx_->residency()) r->BetweenTokens();

    SamplerPtr owner(BuildSampler(sampling_, vocab));
    llama_sampler* smpl = owner.get();
    if (!smpl) {
      SetError("the grammar could not be built");
      return;
    }
    double t_prev = NowMs();
    stop_reason_ = "max_tokens";
    // A draft's verify pass samples from logits we do not keep: log-probabilities decode plainly.
    Context* d = ctx_->draft();
    if (d && sampling_.logprobs < 0 && !sampling_.prompt_logprobs) {
      RunSpeculative(d, smpl, t0, &t_prev);
      total_ms_ = NowMs() - t0;
      return;
    }
    for (int i = 0; i < max_tokens_; i++) {
      if (ctx_->cancel_flag().load()) {
        stop_reason_ = "cancelled";
        break;
      }
      llama_token tok = SampleWithLogprobs(smpl, lctx, -1, sampling_, &logprobs_);
      if (GrammarStuck(smpl)) {
        SetError(kGrammarStuckMessage);
        return;
      }
      if (!Emit(tok, nullptr, t0, &t_prev)) break;
      if (i + 1 == max_tokens_) break;  // no need to decode a token nobody will sample after
      if (static_cast<int>(cached.size()) + 1 >= n_ctx) {
        stop_reason_ = "ctx_full";
        break;
      }
      if (!DecodeTokens(ctx_, &tok, 1, 1, &err, 1)) {
        SetError(err);
        return;
      }
      decodes_++;
      if (Residency* r = ctx_->residency()) r->BetweenTokens();
    }
    total_ms_ = NowMs() - t0;
  }

  // One generated token: the end of generation stops (false), anything else is timed, kept and
  // sent to JS, with the speculative pass it came from on a pass's first token.
  bool Emit(llama_token tok, const SpecPass* pass, double t0, double* t_prev) {
    const llama_vocab* vocab = ctx_->model()->vocab();
    if (llama_vocab_is_eog(vocab, tok)) {
      stop_reason_ = "eos";
      return false;
    }
    const int index = static_cast<int>(tokens_.size());
    double now = NowMs();
    if (index == 0) ttft_ms_ = now - t0;
    per_token_ms_.push_back(now - *t_prev);
    *t_prev = now;
    tokens_.push_back(tok);
    char buf[256];
    int n = llama_token_to_piece(vocab, tok, buf, sizeof buf, 0, false);
    auto* msg = new TokenMsg{index, tok, n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string(), now - t0, false, {}};
    if (pass) {
      msg->has_pass = true;
      msg->pass = *pass;
    }
    if (sampling_.logprobs >= 0 && !pass) {
      msg->has_logprobs = true;
      msg->logprobs = std::move(logprobs_);
    }
    Send(msg);
    return true;
  }

  void Send(TokenMsg* msg) {
    if (!has_tsfn_) {
      delete msg;
      return;
    }
    tsfn_.NonBlockingCall(msg, [](Napi::Env env, Napi::Function cb, TokenMsg* m) {
      Napi::Value pass = env.Undefined();
      if (m->has_pass) {
        Napi::Object p = Napi::Object::New(env);
        p.Set("drafted", m->pass.drafted);
        p.Set("accepted", m->pass.accepted);
        p.Set("draftMs", m->pass.draft_ms);
        p.Set("verifyMs", m->pass.verify_ms);
        pass = p;
      }
      Napi::Value logprobs = m->has_logprobs ? Napi::Value(LogprobsToJs(env, m->logprobs)) : env.Undefined();
      cb.Call({Napi::Number::New(env, m->index), Napi::Number::New(env, m->id),
               Napi::Buffer<char>::Copy(env, m->piece.data(), m->piece.size()), Napi::Number::New(env, m->t_ms), pass, logprobs});
      delete m;
    });
  }

  // The first token comes from the prompt's logits as without a draft; every later one from a
  // draft-and-verify pass (speculative.h).
  void RunSpeculative(Context* draft, llama_sampler* smpl, double t0, double* t_prev) {
    llama_context* lctx = ctx_->get();
    const int n_ctx = static_cast<int>(llama_n_ctx(lctx));
    spec_ = true;
    if (max_tokens_ <= 0) return;
    if (ctx_->cancel_flag().load()) {
      stop_reason_ = "cancelled";
      return;
    }
    // Returns false to stop: cancelled, end of generation, enough tokens, context full.
    auto take = [&](llama_token tok, const SpecPass* pass) -> bool {
      if (ctx_->cancel_flag().load()) {
        stop_reason_ = "cancelled";
        return false;
      }
      if (!Emit(tok, pass, t0, t_prev)) return false;
      if (static_cast<int>(tokens_.size()) >= max_tokens_) return false;
      if (static_cast<int>(ctx_->cached().size()) + 1 >= n_ctx) {
        stop_reason_ = "ctx_full";
        return false;
      }
      return true;
    };
    llama_token first = llama_sampler_sample(smpl, lctx, -1);
    if (!take(first, nullptr)) return;
    std::string err = SpeculativeDecode(ctx_, draft, ctx_->draft_opts(), smpl, first, take, &spec_stats_);
    if (!err.empty()) SetError(err);
  }

  void OnOK() override {
    Napi::Env env = Env();
    ctx_->busy().store(false);
    Napi::Object o = Napi::Object::New(env);
    Napi::Array toks = Napi::Array::New(env, tokens_.size());
    for (size_t i = 0; i < tokens_.size(); i++) toks.Set(i, tokens_[i]);
    o.Set("tokens", toks);
    Napi::Array per = Napi::Array::New(env, per_token_ms_.size());
    for (size_t i = 0; i < per_token_ms_.size(); i++) per.Set(i, per_token_ms_[i]);
    o.Set("perTokenMs", per);
    o.Set("stopReason", stop_reason_);
    o.Set("promptMs", prompt_ms_);
    o.Set("ttftMs", tokens_.empty() ? total_ms_ : ttft_ms_);
    o.Set("totalMs", total_ms_);
    o.Set("reusedTokens", reused_);
    o.Set("decodes", decodes_);
    if (sampling_.prompt_logprobs) o.Set("promptLogprobs", LogprobsToJs(env, prompt_logprobs_));
    if (spec_) {
      Napi::Object d = Napi::Object::New(env);
      d.Set("drafted", spec_stats_.drafted);
      d.Set("accepted", spec_stats_.accepted);
      d.Set("passes", spec_stats_.passes);
      d.Set("draftMs", spec_stats_.draft_ms);
      d.Set("verifyMs", spec_stats_.verify_ms);
      o.Set("draft", d);
    }
    deferred_.Resolve(o);
  }

  void OnError(const Napi::Error& e) override {
    ctx_->busy().store(false);
    deferred_.Reject(MakeError(Env(), "DECODE_FAILED", e.Message()).Value());
  }

 private:
  Napi::Promise::Deferred deferred_;
  Napi::ObjectReference self_ref_;  // keeps the context alive while we run
  Context* ctx_;
  std::vector<llama_token> prompt_;
  int max_tokens_;
  SamplingOpts sampling_;
  Napi::ThreadSafeFunction tsfn_;
  bool has_tsfn_ = false;
  std::vector<llama_token> tokens_;
  std::vector<double> per_token_ms_;
  std::string stop_reason_;
  double prompt_ms_ = 0, ttft_ms_ = 0, total_ms_ = 0;
  int reused_ = 0;
  bool spec_ = false;
  SpecStats spec_stats_;
  PositionLogprobs logprobs_;  // of the token being emitted
  // llama_decode calls of the prompt and the plain token loop; a speculative pass's verification
  // is not counted (as llama-server's n_decode_total leaves speculative decoding out).
  int decodes_ = 0;
  std::vector<PositionLogprobs> prompt_logprobs_;
};

}  // namespace

Napi::Promise QueueGenerate(Napi::Env env, Context* ctx, Napi::Object self, std::vector<llama_token> prompt,
                            const SamplingOpts& sampling, Napi::Function on_token) {
  auto* w = new GenerateWorker(env, ctx, self, std::move(prompt), sampling.max_tokens, sampling, on_token);
  Napi::Promise p = w->Promise();
  w->Queue();
  return p;
}

}  // namespace rf
