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
    if (r) r->OnDecodeStart(k, 1);
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
