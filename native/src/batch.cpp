#include "batch.h"

#include <algorithm>

#include "clock.h"
#include "common.h"
#include "context.h"
#include "grammar.h"
#include "model.h"
#include "residency.h"
#include "sample_probs.h"

namespace rf {

BatchServer::BatchServer(Context* ctx, Napi::ThreadSafeFunction events) : ctx_(ctx), events_(std::move(events)) {
  llama_context* lctx = ctx_->get();
  n_seq_ = static_cast<int>(llama_n_seq_max(lctx));
  // Each sequence has its own share of the context (the cache is not unified across them).
  n_ctx_seq_ = static_cast<int>(llama_n_ctx(lctx)) / std::max(1, n_seq_);
  n_batch_ = static_cast<int>(llama_n_batch(lctx));
  seq_used_.assign(static_cast<size_t>(n_seq_), 0);
  llama_memory_clear(llama_get_memory(lctx), true);
  ctx_->cached().clear();
  loop_ = std::thread([this] { Loop(); });
}

BatchServer::~BatchServer() { Close(); }

void BatchServer::Close() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) return;
    closed_ = true;
    stop_ = true;
  }
  cv_.notify_all();
  if (loop_.joinable()) loop_.join();
  events_.Release();
}

int BatchServer::Submit(std::vector<llama_token> prompt, const SamplingOpts& s) {
  auto r = std::make_unique<Req>();
  r->prompt = std::move(prompt);
  r->sampling = s;
  r->t0 = NowMs();
  int id;
  {
    std::lock_guard<std::mutex> lock(mu_);
    id = r->id = next_id_++;
    pending_.push_back(std::move(r));
  }
  cv_.notify_all();
  return id;
}

void BatchServer::Cancel(int id) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    cancels_.push_back(id);
  }
  cv_.notify_all();
}

int BatchServer::queued() {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(pending_.size());
}

int BatchServer::active() {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(active_.size());
}

void BatchServer::Emit(std::unique_ptr<BatchEvent> owned) {
  // The event is JS's once the call is queued; it is deleted after it was delivered.
  BatchEvent* e = owned.release();
  napi_status st = events_.NonBlockingCall(e, [](Napi::Env env, Napi::Function cb, BatchEvent* ev) {
    Napi::Object o = Napi::Object::New(env);
    o.Set("id", ev->id);
    switch (ev->kind) {
      case BatchEvent::kToken:
        o.Set("type", "token");
        o.Set("index", ev->index);
        o.Set("token", ev->token);
        o.Set("piece", Napi::Buffer<char>::Copy(env, ev->piece.data(), ev->piece.size()));
        o.Set("tMs", ev->t_ms);
        if (ev->has_logprobs) o.Set("logprobs", LogprobsToJs(env, ev->logprobs));
        break;
      case BatchEvent::kDone: {
        o.Set("type", "done");
        Napi::Array toks = Napi::Array::New(env, ev->tokens.size());
        for (size_t i = 0; i < ev->tokens.size(); i++) toks.Set(i, ev->tokens[i]);
        o.Set("tokens", toks);
        Napi::Array per = Napi::Array::New(env, ev->per_token_ms.size());
        for (size_t i = 0; i < ev->per_token_ms.size(); i++) per.Set(i, ev->per_token_ms[i]);
        o.Set("perTokenMs", per);
        o.Set("stopReason", ev->stop_reason);
        o.Set("promptMs", ev->prompt_ms);
        o.Set("ttftMs", ev->ttft_ms);
        o.Set("totalMs", ev->total_ms);
        o.Set("promptTokens", ev->prompt_tokens);
        if (ev->has_prompt_logprobs) o.Set("promptLogprobs", LogprobsToJs(env, ev->prompt_logprobs));
        break;
      }
      case BatchEvent::kError:
        o.Set("type", "error");
        o.Set("message", ev->message);
        break;
      case BatchEvent::kStep:
        o.Set("type", "step");
        o.Set("sequences", ev->n_seq);
        o.Set("tokens", ev->n_tokens);
        o.Set("decoded", ev->n_decode);
        o.Set("ms", ev->step_ms);
        o.Set("tMs", ev->t_ms);
        break;
    }
    delete ev;
    cb.Call({o});
  });
  if (st != napi_ok) delete e;
}

// Leaves: its sequence's cache cells are freed for the next request, and its sampler goes.
void BatchServer::Release(Req* r) {
  if (r->seq >= 0) {
    llama_memory_seq_rm(llama_get_memory(ctx_->get()), r->seq, -1, -1);
    seq_used_[static_cast<size_t>(r->seq)] = 0;
  }
  r->smpl.reset();
}

void BatchServer::Finish(ReqPtr r, const std::string& why) {
  Release(r.get());
  auto e = std::make_unique<BatchEvent>(BatchEvent::kDone);
  e->id = r->id;
  e->tokens = std::move(r->tokens);
  e->per_token_ms = std::move(r->per_token);
  e->stop_reason = why;
  e->prompt_tokens = static_cast<int>(r->prompt.size());
  e->has_prompt_logprobs = r->sampling.prompt_logprobs;
  e->prompt_logprobs = std::move(r->prompt_logprobs);
  double now = NowMs();
  e->total_ms = now - r->t0;
  e->prompt_ms = r->t_prompt_done > 0 ? r->t_prompt_done - r->t0 : e->total_ms;
  e->ttft_ms = e->prompt_ms;
  Emit(std::move(e));
}

// Leaves with an error instead of a result.
void BatchServer::Fail(ReqPtr r, const std::string& message) {
  Release(r.get());
  auto e = std::make_unique<BatchEvent>(BatchEvent::kError);
  e->id = r->id;
  e->message = message;
  Emit(std::move(e));
}

BatchServer::ReqPtr BatchServer::Take(size_t i) {
  std::lock_guard<std::mutex> lock(mu_);
  ReqPtr r = std::move(active_[i]);
  active_.erase(active_.begin() + static_cast<long>(i));
  return r;
}

bool BatchServer::Admit(std::vector<int>* cancels) {
  std::vector<Req*> admitted;
  {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return stop_ || !active_.empty() || !pending_.empty() || !cancels_.empty(); });
    if (stop_) return false;
    cancels->swap(cancels_);
    // Join between steps, while sequences are free.
    while (!pending_.empty() && static_cast<int>(active_.size()) < n_seq_) {
      ReqPtr r = std::move(pending_.front());
      pending_.pop_front();
      for (int s = 0; s < n_seq_; s++)
        if (!seq_used_[static_cast<size_t>(s)]) {
          r->seq = s;
          seq_used_[static_cast<size_t>(s)] = 1;
          break;
        }
      admitted.push_back(r.get());
      active_.push_back(std::move(r));
    }
    // A cancelled request that never started just ends.
    for (int id : *cancels)
      for (auto it = pending_.begin(); it != pending_.end(); ++it)
        if ((*it)->id == id) {
          ReqPtr r = std::move(*it);
          pending_.erase(it);
          lock.unlock();
          Finish(std::move(r), "cancelled");
          lock.lock();
          break;
        }
  }
  const llama_vocab* vocab = ctx_->model()->vocab();
  for (Req* r : admitted) r->smpl.reset(BuildSampler(r->sampling, vocab));
  return true;
}

// Leave: cancelled ones, and prompts that can never fit their sequence's share.
void BatchServer::DropUnservable(const std::vector<int>& cancels) {
  for (int id : cancels)
    for (auto& r : active_)
      if (r->id == id) r->cancelled = true;
  for (size_t i = 0; i < active_.size();) {
    Req* r = active_[i].get();
    bool too_long = static_cast<int>(r->prompt.size()) >= n_ctx_seq_;
    bool no_sampler = !r->smpl;  // its grammar did not parse (checked at submit: not expected)
    if (!r->cancelled && !too_long && !r->prompt.empty() && !no_sampler) {
      i++;
      continue;
    }
    if (too_long || r->prompt.empty() || no_sampler) {
      std::string why = r->prompt.empty() ? "empty prompt"
                        : too_long        ? "prompt has " + std::to_string(r->prompt.size()) + " tokens; each sequence holds " + std::to_string(n_ctx_seq_)
                                          : "the grammar could not be built";
      Fail(Take(i), why);
    } else {
      Finish(Take(i), "cancelled");
    }
  }
}

// One step: the next token of every decoding sequence, then as much prompt as fits.
int BatchServer::FillBatch(llama_batch* batch) {
  batch->n_tokens = 0;
  auto add = [&](llama_token t, int pos, int seq, bool logits) {
    int i = batch->n_tokens++;
    batch->token[i] = t;
    batch->pos[i] = pos;
    batch->n_seq_id[i] = 1;
    batch->seq_id[i][0] = seq;
    batch->logits[i] = logits;
    return i;
  };
  int n_decode = 0;
  for (auto& r : active_) {
    r->logits_at = -1;
    if (r->has_last && batch->n_tokens < n_batch_) {
      r->logits_at = add(r->last, r->pos++, r->seq, true);
      n_decode++;
    }
  }
  for (auto& r : active_) {
    if (r->has_last || r->fed >= r->prompt.size()) continue;
    size_t room = static_cast<size_t>(n_batch_ - batch->n_tokens);
    size_t k = std::min(room, r->prompt.size() - r->fed);
    r->prompt_rows.clear();
    for (size_t j = 0; j < k; j++) {
      bool last = r->fed + 1 == r->prompt.size();
      int at = add(r->prompt[r->fed], r->pos++, r->seq, last || r->sampling.prompt_logprobs);
      if (last) r->logits_at = at;
      else if (r->sampling.prompt_logprobs) r->prompt_rows.push_back({at, r->fed});
      r->fed++;
    }
  }
  return n_decode;
}

void BatchServer::TakePromptLogprobs(Req* r) {
  const int n_vocab = llama_vocab_n_tokens(ctx_->model()->vocab());
  const int n_top = std::max(0, r->sampling.logprobs);
  for (auto [row, p] : r->prompt_rows)
    r->prompt_logprobs.push_back(LogprobsAt(llama_get_logits_ith(ctx_->get(), row), n_vocab, r->prompt[p + 1], n_top));
  r->prompt_rows.clear();
}

// Sample where logits were asked for; leave at the end of generation.
void BatchServer::SampleAll(double now) {
  llama_context* lctx = ctx_->get();
  const llama_vocab* vocab = ctx_->model()->vocab();
  for (size_t i = 0; i < active_.size();) {
    Req* r = active_[i].get();
    bool done = false;
    std::string why;
    if (!r->prompt_rows.empty()) TakePromptLogprobs(r);
    if (r->logits_at >= 0 && r->sampling.max_tokens == 0) {
      // The prompt is in (its log-probabilities, when asked, taken): nothing to sample.
      done = true;
      why = "max_tokens";
    } else if (r->logits_at >= 0) {
      if (!r->has_last) r->t_prompt_done = now;
      PositionLogprobs lp;
      llama_token tok = SampleWithLogprobs(r->smpl.get(), lctx, r->logits_at, r->sampling, &lp);
      if (GrammarStuck(r->smpl.get())) {
        Fail(Take(i), kGrammarStuckMessage);
        continue;
      }
      if (llama_vocab_is_eog(vocab, tok)) {
        done = true;
        why = "eos";
      } else {
        int index = static_cast<int>(r->tokens.size());
        r->tokens.push_back(tok);
        r->per_token.push_back(r->has_last ? now - r->t_prev : now - r->t0);
        r->t_prev = now;
        char buf[256];
        int n = llama_token_to_piece(vocab, tok, buf, sizeof buf, 0, false);
        auto e = std::make_unique<BatchEvent>(BatchEvent::kToken);
        e->id = r->id;
        e->index = index;
        e->token = tok;
        e->piece = n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
        e->t_ms = now - r->t0;
        e->has_logprobs = r->sampling.logprobs >= 0;
        e->logprobs = std::move(lp);
        Emit(std::move(e));
        r->last = tok;
        r->has_last = true;
        if (static_cast<int>(r->tokens.size()) >= r->sampling.max_tokens) {
          done = true;
          why = "max_tokens";
        } else if (r->pos + 1 >= n_ctx_seq_) {
          done = true;
          why = "ctx_full";
        }
      }
    } else if (r->sampling.max_tokens == 0 && r->fed >= r->prompt.size()) {
      done = true;
      why = "max_tokens";
    }
    if (done) {
      Finish(Take(i), why);
      continue;
    }
    i++;
  }
}

void BatchServer::Loop() {
  llama_context* lctx = ctx_->get();
  llama_batch batch = llama_batch_init(n_batch_, 0, 1);
  for (;;) {
    std::vector<int> cancels;
    if (!Admit(&cancels)) break;
    DropUnservable(cancels);
    if (active_.empty()) continue;
    int n_decode = FillBatch(&batch);
    if (batch.n_tokens == 0) continue;
    double t_step = NowMs();
    Residency* res = ctx_->residency();
    // Only sampled tokens: a decode step; any prompt tokens in it: a prompt step (for the routing tap).
    if (res) res->OnDecodeStart(batch.n_tokens, n_decode == batch.n_tokens ? 1 : 0);
    int rc = llama_decode(lctx, batch);
    if (res) res->OnDecodeEnd();
    std::string serr = res ? res->StreamError() : "";
    if (rc != 0 || !serr.empty()) {
      // A failed step ends every request in it.
      std::string why = serr.empty() ? "llama_decode failed (" + std::to_string(rc) + ")" : serr;
      while (!active_.empty()) Fail(Take(0), why);
      continue;
    }
    double now = NowMs();
    auto e = std::make_unique<BatchEvent>(BatchEvent::kStep);
    e->n_seq = static_cast<int>(active_.size());
    e->n_tokens = batch.n_tokens;
    e->n_decode = n_decode;
    e->step_ms = now - t_step;
    e->t_ms = now;
    Emit(std::move(e));
    if (res) res->BetweenTokens();
    SampleAll(now);
  }
  // Closing: everything still here ends as cancelled.
  std::vector<ReqPtr> rest;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& r : active_) rest.push_back(std::move(r));
    for (auto& r : pending_) rest.push_back(std::move(r));
    active_.clear();
    pending_.clear();
  }
  for (auto& r : rest) Finish(std::move(r), "cancelled");
  llama_batch_free(batch);
}

}  // namespace rf
