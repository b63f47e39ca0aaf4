#include "speculative.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "clock.h"
#include "common.h"
#include "context.h"
#include "ggml-backend.h"
#include "ggml.h"
#include "model.h"
#include "residency.h"
#include "llama_internal.h"

namespace rf {

namespace {

// Decodes toks at positions pos0.. in sequence 0, in chunks of the context's batch; logits for
// every token when `all_logits` (verification), else none. Appends to the context's cached().
bool Decode(Context* c, const llama_token* toks, int n, int pos0, bool all_logits, std::string* err) {
  llama_context* lctx = c->get();
  const int n_batch = static_cast<int>(llama_n_batch(lctx));
  Residency* r = c->residency();
  for (int i = 0; i < n; i += n_batch) {
    const int k = std::min(n_batch, n - i);
    llama_batch b = llama_batch_init(k, 0, 1);
    for (int j = 0; j < k; j++) {
      b.token[j] = toks[i + j];
      b.pos[j] = pos0 + i + j;
      b.n_seq_id[j] = 1;
      b.seq_id[j][0] = 0;
      b.logits[j] = all_logits;
    }
    b.n_tokens = k;
    if (r) r->OnDecodeStart(k);
    LogMark();
    int rc = llama_decode(lctx, b);
    if (r) r->OnDecodeEnd();
    llama_batch_free(b);
    std::string serr = r ? r->StreamError() : "";
    if (rc != 0 || !serr.empty()) {
      std::string why = LogErrorsSinceMark();
      *err = !serr.empty() ? serr : "llama_decode failed (" + std::to_string(rc) + ")" + (why.empty() ? "" : ": " + why);
      return false;
    }
    c->cached().insert(c->cached().end(), toks + i, toks + i + k);
  }
  return true;
}

// Drops sequence 0 from position `n` on, in the KV cache and in cached().
void Truncate(Context* c, size_t n) {
  if (c->cached().size() <= n) return;
  llama_memory_seq_rm(llama_get_memory(c->get()), 0, static_cast<llama_pos>(n), -1);
  c->cached().resize(n);
}

// The draft's most likely next token and its probability.
llama_token Argmax(llama_context* ctx, int n_vocab, float* prob) {
  const float* l = llama_get_logits_ith(ctx, -1);
  int best = 0;
  for (int i = 1; i < n_vocab; i++)
    if (l[i] > l[best]) best = i;
  double sum = 0;
  for (int i = 0; i < n_vocab; i++) sum += std::exp(static_cast<double>(l[i] - l[best]));
  *prob = static_cast<float>(1.0 / sum);
  return best;
}

}  // namespace

DraftLength::DraftLength(int min, int max)
    : min_(min), max_(max), k_(max), samples_(static_cast<size_t>(max) + 2) {}

int DraftLength::next() {
  if (k_ > 0 || max_ == 0) return k_;
  if (++idle_ < kProbeEvery) return 0;
  idle_ = 0;
  return 1;
}

std::vector<double> DraftLength::Medians() const {
  std::vector<double> out(samples_.size(), -1);
  for (size_t n = 0; n < samples_.size(); n++) {
    std::vector<double> v = samples_[n];
    if (v.empty()) continue;
    std::sort(v.begin(), v.end());
    out[n] = v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
  }
  return out;
}

double DraftLength::VerifyMs(const std::vector<double>& t_verify, int n) {
  // Least squares line through the sizes seen; with one size seen, every size costs the same
  // (the optimistic guess a streamed pass suggests) until another is tried.
  double sn = 0, st = 0, snn = 0, snt = 0, m = 0;
  for (size_t i = 1; i < t_verify.size(); i++) {
    if (t_verify[i] < 0) continue;
    const double x = static_cast<double>(i);
    sn += x, st += t_verify[i], snn += x * x, snt += x * t_verify[i], m++;
  }
  if (m == 0) return -1;
  if (t_verify[static_cast<size_t>(n)] >= 0) return t_verify[static_cast<size_t>(n)];
  if (m == 1) return st;
  const double slope = std::max(0.0, (m * snt - sn * st) / (m * snn - sn * sn));
  return st / m + slope * (n - sn / m);
}

void DraftLength::observe(const SpecPass& p) {
  // Decayed counts: acceptance drifts with the text, so recent passes weigh more.
  if (p.drafted > 0) {
    accepted_ = accepted_ * 0.9 + p.accepted;
    rejected_ = rejected_ * 0.9 + (p.accepted < p.drafted ? 1 : 0);
  }
  auto ema = [](double& v, double x) { v = v < 0 ? x : 0.8 * v + 0.2 * x; };
  if (p.drafted > 0) ema(t_draft_, p.draft_ms / p.drafted);
  const size_t n = static_cast<size_t>(p.drafted) + 1;
  if (n < samples_.size()) {
    auto& v = samples_[n];
    if (v.size() == kSamples) v.erase(v.begin());
    v.push_back(p.verify_ms);
  }
  if (t_draft_ < 0) return;
  const std::vector<double> t_verify = Medians();
  // A pass of more tokens never costs less than one of fewer. The medians of two sizes are
  // taken at different times, though: a size last run while something else held the CPU keeps
  // its slow samples for as long as it is not run again (the 1-token pass, once every pass
  // drafts). Without this floor such a stale median makes drafting look free and locks it in.
  std::vector<double> est(static_cast<size_t>(max_) + 2, 0);
  for (int n = 1; n <= max_ + 1; n++)
    est[static_cast<size_t>(n)] = std::max(VerifyMs(t_verify, n), est[static_cast<size_t>(n) - 1]);
  const double a = std::min(0.999, accepted_ / (accepted_ + rejected_));
  double best = -1;
  for (int k = min_; k <= max_; k++) {
    const double tokens = (1 - std::pow(a, k + 1)) / (1 - a);
    const double rate = tokens / (est[static_cast<size_t>(k) + 1] + k * t_draft_);
    if (rate > best * 1.0001) {
      best = rate;
      k_ = k;
    }
  }
}

std::string SpeculativeDecode(Context* target, Context* draft, const DraftOpts& opts, llama_sampler* smpl,
                              llama_token first, const std::function<bool(llama_token, const SpecPass*)>& emit,
                              SpecStats* stats) {
  llama_context* tctx = target->get();
  llama_context* dctx = draft->get();
  const int n_vocab = llama_vocab_n_tokens(target->model()->vocab());
  const int n_ctx = static_cast<int>(std::min(llama_n_ctx(tctx), llama_n_ctx(dctx)));
  // One verify pass must be one micro-batch, or the streamed weights are read once per piece.
  const int max_k = std::max(0, std::min(opts.max, static_cast<int>(llama_n_ubatch(tctx)) - 1));
  DraftLength chooser(std::min(opts.min, max_k), max_k);
  std::string err;
  std::vector<llama_token> drafts, batch;
  llama_token last = first;
  for (;;) {
    const size_t n_past = target->cached().size();
    SpecPass pass;
    double t0 = NowMs();
    int k = std::min(chooser.next(), n_ctx - static_cast<int>(n_past) - 2);
    // The draft catches up with what the target holds (the prompt, the tokens of passes that
    // drafted nothing, a fully accepted draft's last token), then proposes from `last` on. With
    // nothing to draft it stays behind: catching up later is one batch, not one decode a token.
    if (k > 0) {
      const auto& tc = target->cached();
      auto& dc = draft->cached();
      size_t common = 0;
      while (common < dc.size() && common < tc.size() && dc[common] == tc[common]) common++;
      Truncate(draft, common);
      if (common < n_past && !Decode(draft, tc.data() + common, static_cast<int>(n_past - common), static_cast<int>(common), false, &err))
        return "draft: " + err;
    }
    drafts.clear();
    llama_token tok = last;
    for (int i = 0; i < k; i++) {
      if (!Decode(draft, &tok, 1, static_cast<int>(n_past) + i, true, &err)) return "draft: " + err;
      float p = 0;
      llama_token d = Argmax(dctx, n_vocab, &p);
      if (i >= opts.min && p < opts.p_min) break;
      drafts.push_back(d);
      tok = d;
    }
    pass.drafted = static_cast<int>(drafts.size());
    double t1 = NowMs();
    pass.draft_ms = t1 - t0;

    // Verify: `last` and every draft in one pass, logits at each position.
    batch.assign(1, last);
    batch.insert(batch.end(), drafts.begin(), drafts.end());
    if (!Decode(target, batch.data(), static_cast<int>(batch.size()), static_cast<int>(n_past), true, &err)) return err;
    std::vector<llama_token> kept;
    for (size_t i = 0; i < batch.size(); i++) {
      llama_token id = llama_sampler_sample(smpl, tctx, static_cast<int>(i));
      kept.push_back(id);
      if (i == drafts.size() || id != drafts[i]) break;
    }
    pass.accepted = static_cast<int>(kept.size()) - 1;
    // KV keeps `last` and the accepted drafts; the rejected positions go.
    Truncate(target, n_past + 1 + static_cast<size_t>(pass.accepted));
    Truncate(draft, n_past + 1 + static_cast<size_t>(pass.accepted));
    if (Residency* r = target->residency()) r->BetweenTokens();
    pass.verify_ms = NowMs() - t1;
    chooser.observe(pass);
    stats->passes++;
    stats->drafted += pass.drafted;
    stats->accepted += pass.accepted;
    stats->draft_ms += pass.draft_ms;
    stats->verify_ms += pass.verify_ms;
    for (size_t i = 0; i < kept.size(); i++)
      if (!emit(kept[i], i == 0 ? &pass : nullptr)) return "";
    last = kept.back();
  }
}

std::string ShareWeights(const llama_model* draft, const llama_model* target, const std::vector<std::string>& names,
                         double* shared_bytes) {
  std::unordered_map<std::string, ggml_tensor*> dt, tt;
  for (const auto& [n, t] : llama_internal_get_tensor_map(draft)) dt[n] = t;
  for (const auto& [n, t] : llama_internal_get_tensor_map(target)) tt[n] = t;
  // Checked before anything changes: a half-shared draft would be a third model.
  for (const auto& n : names) {
    auto d = dt.find(n), t = tt.find(n);
    if (d == dt.end() || t == tt.end()) return "no tensor " + n + " in " + (d == dt.end() ? "the draft" : "the target");
    if (d->second->type != t->second->type || !ggml_are_same_shape(d->second, t->second))
      return "tensor " + n + " differs in type or shape between the draft and the target";
    ggml_backend_buffer_t tb = t->second->buffer, db = d->second->buffer;
    if (!tb || !db) return "tensor " + n + " has no buffer";
    // A repacked copy (not "host": its layout is the kernel's, not the file's) is shared only
    // with another repacked copy: the same bytes repacked the same way.
    if (std::string(ggml_backend_buffer_name(tb)) != ggml_backend_buffer_name(db))
      return "tensor " + n + " is held differently by the draft (" + ggml_backend_buffer_name(db) + ") and the target (" +
             ggml_backend_buffer_name(tb) + ")";
  }
  *shared_bytes = 0;
  for (const auto& n : names) {
    dt[n]->data = tt[n]->data;
    *shared_bytes += static_cast<double>(ggml_nbytes(tt[n]));
  }
  return "";
}

}  // namespace rf
