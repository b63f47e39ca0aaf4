#include "context.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdio>
#include <chrono>
#include <cstring>
#include <string>

#include "common.h"
#include "ggml-backend.h"
#include "ggml.h"
#include "model.h"
#include "residency.h"
#include "sampling.h"
#include "batch.h"

// llama.cpp's own (internal, C++) accessor for the loaded weight tensors; we link llama
// statically, so it is reachable, and it is the only way to learn where each weight lives.
const std::vector<std::pair<std::string, ggml_tensor*>>& llama_internal_get_tensor_map(const llama_model* model);

namespace rf {

Napi::FunctionReference Context::constructor_;

namespace {

struct MapRegion {
  uintptr_t start, end;
  bool candidate;  // private, writable, anonymous, not the heap, not a thread stack
};

std::vector<MapRegion> MapRegions() {
  std::vector<MapRegion> out;
  FILE* f = fopen("/proc/self/maps", "r");
  if (!f) return out;
  char line[512];
  uintptr_t prev_guard_end = 0;
  while (fgets(line, sizeof line, f)) {
    unsigned long a, b, off, inode;
    char perms[8] = {0}, dev[16] = {0}, path[256] = {0};
    int n = sscanf(line, "%lx-%lx %7s %lx %15s %lu %255s", &a, &b, perms, &off, dev, &inode, path);
    if (n < 6) continue;
    bool anon = inode == 0 && n == 6;
    bool guard = anon && perms[0] == '-' && perms[1] == '-';
    // A thread's stack sits right above its guard page: not ours to charge.
    bool stack = prev_guard_end == a;
    out.push_back({a, b, anon && perms[0] == 'r' && perms[1] == 'w' && perms[3] == 'p' && !stack});
    prev_guard_end = guard ? b : 0;
  }
  fclose(f);
  return out;
}

// Under a cap the context's buffers (compute buffer, caches) are charged at creation, not on the
// first long prompt: the plan is then made against what the run really holds, and a long
// prompt later cannot push the run against the cap. Faults in, for writing, every candidate
// region that is new or grew; MADV_POPULATE_WRITE never changes the contents of present pages.
double PrechargeSince(const std::vector<MapRegion>& before) {
  double total = 0;
  for (const auto& r : MapRegions()) {
    if (!r.candidate) continue;
    uintptr_t from = r.start;
    for (const auto& b : before)
      if (b.start == r.start) from = std::max(from, b.end);
    if (from >= r.end) continue;
    if (madvise(reinterpret_cast<void*>(from), r.end - from, 23 /* MADV_POPULATE_WRITE */) == 0) total += static_cast<double>(r.end - from);
  }
  return total;
}

double NowMs() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

int GetInt(const Napi::Object& o, const char* key, int def) {
  if (!o.Has(key)) return def;
  Napi::Value v = o.Get(key);
  return v.IsNumber() ? v.As<Napi::Number>().Int32Value() : def;
}


bool DecodeTokens(Context* c, const llama_token* toks, int n, int n_batch, std::string* err) {
  Residency* r = c->residency();
  for (int i = 0; i < n; i += n_batch) {
    int k = std::min(n_batch, n - i);
    llama_batch batch = llama_batch_get_one(const_cast<llama_token*>(toks + i), k);
    if (r) r->OnDecodeStart(k);
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
    c->cached().insert(c->cached().end(), toks + i, toks + i + k);
  }
  return true;
}

struct TokenMsg {
  int index;
  int32_t id;
  std::string piece;
  double t_ms;
  bool has_pass = false;
  SpecPass pass;  // on the first token of a speculative pass
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
    while (keep < cached.size() && keep + 1 < prompt_.size() && cached[keep] == prompt_[keep]) keep++;
    llama_memory_seq_rm(llama_get_memory(lctx), 0, static_cast<llama_pos>(keep), -1);
    cached.resize(keep);
    reused_ = static_cast<int>(keep);

    std::string err;
    if (!DecodeTokens(ctx_, prompt_.data() + keep, static_cast<int>(prompt_.size() - keep), n_batch, &err)) {
      SetError(err);
      return;
    }
    prompt_ms_ = NowMs() - t0;
    if (Residency* r = ctx_->residency()) r->BetweenTokens();

    llama_sampler* smpl = BuildSampler(sampling_, llama_vocab_n_tokens(vocab));
    double t_prev = NowMs();
    stop_reason_ = "max_tokens";
    if (Context* d = ctx_->draft()) {
      RunSpeculative(d, smpl, t0, t_prev);
      llama_sampler_free(smpl);
      total_ms_ = NowMs() - t0;
      return;
    }
    for (int i = 0; i < max_tokens_; i++) {
      if (ctx_->cancel_flag().load()) {
        stop_reason_ = "cancelled";
        break;
      }
      llama_token tok = llama_sampler_sample(smpl, lctx, -1);
      if (llama_vocab_is_eog(vocab, tok)) {
        stop_reason_ = "eos";
        break;
      }
      double now = NowMs();
      if (i == 0) ttft_ms_ = now - t0;
      per_token_ms_.push_back(now - t_prev);
      t_prev = now;
      tokens_.push_back(tok);
      char buf[256];
      int n = llama_token_to_piece(vocab, tok, buf, sizeof buf, 0, false);
      std::string piece = n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
      Send(new TokenMsg{i, tok, std::move(piece), now - t0});
      if (i + 1 == max_tokens_) break;  // no need to decode a token nobody will sample after
      if (static_cast<int>(cached.size()) + 1 >= n_ctx) {
        stop_reason_ = "ctx_full";
        break;
      }
      if (!DecodeTokens(ctx_, &tok, 1, 1, &err)) {
        llama_sampler_free(smpl);
        SetError(err);
        return;
      }
      if (Residency* r = ctx_->residency()) r->BetweenTokens();
    }
    llama_sampler_free(smpl);
    total_ms_ = NowMs() - t0;
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
      cb.Call({Napi::Number::New(env, m->index), Napi::Number::New(env, m->id),
               Napi::Buffer<char>::Copy(env, m->piece.data(), m->piece.size()), Napi::Number::New(env, m->t_ms), pass});
      delete m;
    });
  }

  // The first token comes from the prompt's logits as without a draft; every later one from a
  // draft-and-verify pass (speculative.h).
  void RunSpeculative(Context* draft, llama_sampler* smpl, double t0, double t_prev) {
    llama_context* lctx = ctx_->get();
    const llama_vocab* vocab = ctx_->model()->vocab();
    const int n_ctx = static_cast<int>(llama_n_ctx(lctx));
    spec_ = true;
    if (max_tokens_ <= 0) return;
    if (ctx_->cancel_flag().load()) {
      stop_reason_ = "cancelled";
      return;
    }
    int index = 0;
    // Returns false to stop: cancelled, end of generation, enough tokens, context full.
    auto take = [&](llama_token tok, const SpecPass* pass) -> bool {
      if (ctx_->cancel_flag().load()) {
        stop_reason_ = "cancelled";
        return false;
      }
      if (llama_vocab_is_eog(vocab, tok)) {
        stop_reason_ = "eos";
        return false;
      }
      double now = NowMs();
      if (index == 0) ttft_ms_ = now - t0;
      per_token_ms_.push_back(now - t_prev);
      t_prev = now;
      tokens_.push_back(tok);
      char buf[256];
      int n = llama_token_to_piece(vocab, tok, buf, sizeof buf, 0, false);
      auto* msg = new TokenMsg{index, tok, n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string(), now - t0};
      if (pass) {
        msg->has_pass = true;
        msg->pass = *pass;
      }
      Send(msg);
      index++;
      if (index >= max_tokens_) return false;
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
};

std::vector<llama_token> TokensFrom(const Napi::Value& v, int n_vocab, std::string* err) {
  std::vector<llama_token> out;
  if (v.IsTypedArray() && v.As<Napi::TypedArray>().TypedArrayType() == napi_int32_array) {
    Napi::Int32Array a = v.As<Napi::Int32Array>();
    out.assign(a.Data(), a.Data() + a.ElementLength());
  } else if (v.IsArray()) {
    Napi::Array a = v.As<Napi::Array>();
    for (uint32_t i = 0; i < a.Length(); i++) out.push_back(a.Get(i).As<Napi::Number>().Int32Value());
  } else {
    *err = "tokens must be an Int32Array or number[]";
    return out;
  }
  for (llama_token t : out)
    if (t < 0 || t >= n_vocab) {
      *err = "token id " + std::to_string(t) + " out of range";
      break;
    }
  return out;
}

}  // namespace

void Context::Init(Napi::Env env, Napi::Object exports) {
  Napi::Function fn = DefineClass(env, "Context",
                                  {
                                      InstanceMethod("evalLogits", &Context::EvalLogits),
                                      InstanceMethod("generate", &Context::Generate),
                                      InstanceMethod("cancel", &Context::Cancel),
                                      InstanceMethod("clearMemory", &Context::ClearMemory),
                                      InstanceMethod("info", &Context::Info),
                                      InstanceMethod("residencyConfigure", &Context::ResidencyConfigure),
                                      InstanceMethod("residencySample", &Context::ResidencySample),
                                      InstanceMethod("residencyDrop", &Context::ResidencyDrop),
                                      InstanceMethod("residencyPrefetch", &Context::ResidencyPrefetch),
                                      InstanceMethod("attachDraft", &Context::AttachDraft),
                                      InstanceMethod("detachDraft", &Context::DetachDraft),
                                      InstanceMethod("traceArm", &Context::TraceArm),
                                      InstanceMethod("serveOpen", &Context::ServeOpen),
                                      InstanceMethod("serveSubmit", &Context::ServeSubmit),
                                      InstanceMethod("serveCancel", &Context::ServeCancel),
                                      InstanceMethod("serveClose", &Context::ServeClose),
                                      InstanceMethod("serveInfo", &Context::ServeInfo),
                                      InstanceMethod("traceTake", &Context::TraceTake),
                                      InstanceMethod("free", &Context::Free),
                                  });
  constructor_ = Napi::Persistent(fn);
  constructor_.SuppressDestruct();
  exports.Set("Context", fn);
}

Napi::Value Context::Create(Napi::Env env, Napi::Value model, Napi::Object opts) {
  return constructor_.New({model, opts});
}

Context::Context(const Napi::CallbackInfo& info) : Napi::ObjectWrap<Context>(info) {
  Napi::Env env = info.Env();
  if (info.Length() != 2 || !info[0].IsObject() || !Model::Is(info[0].As<Napi::Object>())) {
    ThrowError(env, "BAD_ARGUMENT", "Context cannot be constructed directly; use model.createContext()");
    return;
  }
  model_ = Model::Unwrap(info[0].As<Napi::Object>());
  if (!model_->CheckAlive(env)) return;
  Napi::Object opts = info[1].As<Napi::Object>();
  llama_context_params p = llama_context_default_params();
  // Bounded here as at the API edge: an absurd context is an allocation llama.cpp would attempt.
  int n_ctx = GetInt(opts, "nCtx", 4096), n_seq = GetInt(opts, "nSeq", 1), threads = GetInt(opts, "nThreads", 0);
  n_batch_ = GetInt(opts, "nBatch", 512);
  if (n_ctx < 16 || n_ctx > (1 << 20) || n_batch_ < 1 || n_batch_ > 8192 || threads < 0 || threads > 512 || n_seq < 1 || n_seq > 64) {
    ThrowError(env, "BAD_ARGUMENT", "context options out of range: nCtx 16..1048576, nBatch 1..8192, nThreads 0..512, nSeq 1..64");
    return;
  }
  p.n_ctx = static_cast<uint32_t>(n_ctx);
  p.n_seq_max = static_cast<uint32_t>(n_seq);
  p.n_batch = static_cast<uint32_t>(n_batch_);
  p.n_ubatch = static_cast<uint32_t>(std::min(n_batch_, 512));
  if (threads > 0) {
    p.n_threads = threads;
    p.n_threads_batch = threads;
  }
  p.no_perf = false;
  if (opts.Has("observeLayers") && opts.Get("observeLayers").ToBoolean().Value()) {
    residency_ = std::make_unique<Residency>();
    // The eval callback splits the graph at every layer boundary; only the stream schedule
    // and the graph trace need it, so a run that streams nothing does not pay for it.
    bool callback = !opts.Has("layerCallback") || opts.Get("layerCallback").ToBoolean().Value();
    if (callback) {
      p.cb_eval = Residency::EvalCallback;
      p.cb_eval_user_data = residency_.get();
    }
  }
  bool precharge = opts.Has("precharge") && opts.Get("precharge").ToBoolean().Value();
  std::vector<MapRegion> before = precharge ? MapRegions() : std::vector<MapRegion>();
  LogMark();
  ctx_ = llama_init_from_model(model_->get(), p);
  if (ctx_ && precharge) precharged_bytes_ = PrechargeSince(before);
  if (!ctx_) {
    std::string why = LogErrorsSinceMark();
    ThrowError(env, "CONTEXT_FAILED", "failed to create the context" + (why.empty() ? std::string() : ": " + why));
    return;
  }
  model_ref_ = Napi::Persistent(info[0].As<Napi::Object>());
  weights_ = model_->share();
}

Context::~Context() { Release(); }

void Context::Release() {
  if (draft_) draft_->busy_.store(false);
  draft_ = nullptr;
  if (!draft_ref_.IsEmpty()) draft_ref_.Reset();
  if (server_) {
    server_->Close();
    server_.reset();
  }
  if (ctx_) {
    llama_free(ctx_);
    ctx_ = nullptr;
    residency_.reset();
    // Only after llama_free: the context reads the weights until then.
    weights_.reset();
    model_ref_.Reset();
  }
}

bool Context::CheckUsable(Napi::Env env) {
  if (!ctx_) {
    ThrowError(env, "FREED", "context has been freed");
    return false;
  }
  if (busy_.load()) {
    ThrowError(env, "BUSY", "the context is generating; cancel() and wait first");
    return false;
  }
  return true;
}

// Final-token logits for a token sequence, from an empty KV cache (correctness checks).
Napi::Value Context::EvalLogits(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!CheckUsable(env)) return env.Undefined();
  std::string err;
  auto toks = TokensFrom(info[0], llama_vocab_n_tokens(model_->vocab()), &err);
  if (err.empty() && toks.empty()) err = "no tokens";
  if (err.empty() && static_cast<int>(toks.size()) >= static_cast<int>(llama_n_ctx(ctx_))) err = "too many tokens for the context";
  if (!err.empty()) {
    ThrowError(env, "BAD_ARGUMENT", err);
    return env.Undefined();
  }
  LogMark();
  llama_memory_clear(llama_get_memory(ctx_), true);
  cached_.clear();
  if (!DecodeTokens(this, toks.data(), static_cast<int>(toks.size()), n_batch_, &err)) {
    ThrowError(env, "DECODE_FAILED", err);
    return env.Undefined();
  }
  const float* logits = llama_get_logits_ith(ctx_, -1);
  int n_vocab = llama_vocab_n_tokens(model_->vocab());
  Napi::Float32Array out = Napi::Float32Array::New(env, static_cast<size_t>(n_vocab));
  std::memcpy(out.Data(), logits, sizeof(float) * static_cast<size_t>(n_vocab));
  return out;
}

// generate(promptTokens, {maxTokens, temperature, topK, topP, minP, seed, repeatPenalty,
// repeatLastN}, onToken(index, id, pieceBytes, tMs)) -> Promise<result>
Napi::Value Context::Generate(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!CheckUsable(env)) return env.Undefined();
  std::string err;
  auto toks = TokensFrom(info[0], llama_vocab_n_tokens(model_->vocab()), &err);
  if (err.empty() && toks.empty()) err = "empty prompt: nothing to condition on";
  if (!err.empty()) {
    ThrowError(env, "BAD_ARGUMENT", err);
    return env.Undefined();
  }
  Napi::Object o = info.Length() > 1 && info[1].IsObject() ? info[1].As<Napi::Object>() : Napi::Object::New(env);
  SamplingOpts s;
  std::string serr = ParseSampling(o, &s);
  if (!serr.empty()) {
    ThrowError(env, "BAD_ARGUMENT", serr);
    return env.Undefined();
  }
  int max_tokens = s.max_tokens;
  Napi::Function cb = info.Length() > 2 && info[2].IsFunction() ? info[2].As<Napi::Function>() : Napi::Function();
  cancel_.store(false);
  busy_.store(true);
  auto* w = new GenerateWorker(env, this, Value(), std::move(toks), max_tokens, s, cb);
  Napi::Promise p = w->Promise();
  w->Queue();
  return p;
}

// attachDraft(draftContext, {max, min, pMin}): later generate() calls decode speculatively with
// the draft proposing. The draft context is reserved for this one while attached (BUSY to
// direct use), and must share the target's vocabulary.
Napi::Value Context::AttachDraft(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!CheckUsable(env)) return env.Undefined();
  if (info.Length() < 1 || !info[0].IsObject() || !info[0].As<Napi::Object>().InstanceOf(constructor_.Value())) {
    ThrowError(env, "BAD_ARGUMENT", "attachDraft(draftContext, {max, min, pMin})");
    return env.Undefined();
  }
  Context* d = Context::Unwrap(info[0].As<Napi::Object>());
  if (d == this || !d->ctx_ || d->busy_.load() || d->draft_) {
    ThrowError(env, "BAD_ARGUMENT", "the draft must be another, idle context without a draft of its own");
    return env.Undefined();
  }
  if (server_) {
    ThrowError(env, "BUSY", "a context serving several sequences does not take a draft");
    return env.Undefined();
  }
  const llama_vocab* tv = model_->vocab();
  const llama_vocab* dv = d->model_->vocab();
  if (llama_vocab_n_tokens(tv) != llama_vocab_n_tokens(dv)) {
    ThrowError(env, "DRAFT_VOCAB", "the draft's vocabulary has " + std::to_string(llama_vocab_n_tokens(dv)) + " tokens, the target's " +
                                       std::to_string(llama_vocab_n_tokens(tv)));
    return env.Undefined();
  }
  DraftOpts o;
  Napi::Object opts = info.Length() > 1 && info[1].IsObject() ? info[1].As<Napi::Object>() : Napi::Object::New(env);
  o.max = GetInt(opts, "max", o.max);
  o.min = GetInt(opts, "min", o.min);
  if (opts.Has("pMin") && opts.Get("pMin").IsNumber()) o.p_min = opts.Get("pMin").As<Napi::Number>().FloatValue();
  if (o.max < 1 || o.max > 64 || o.min < 0 || o.min > o.max || !(o.p_min >= 0 && o.p_min <= 1)) {
    ThrowError(env, "BAD_ARGUMENT", "draft options out of range: max 1..64, min 0..max, pMin 0..1");
    return env.Undefined();
  }
  if (draft_) draft_->busy_.store(false);
  draft_ = d;
  draft_ref_ = Napi::Persistent(info[0].As<Napi::Object>());
  draft_opts_ = o;
  d->busy_.store(true);
  return env.Undefined();
}

Napi::Value Context::DetachDraft(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (busy_.load()) {
    ThrowError(env, "BUSY", "the context is generating; cancel() and wait first");
    return env.Undefined();
  }
  if (draft_) draft_->busy_.store(false);
  draft_ = nullptr;
  if (!draft_ref_.IsEmpty()) draft_ref_.Reset();
  return env.Undefined();
}

// serveOpen(onEvent(e)): continuous batching over this context's sequences (nSeq at creation).
// While open, the context belongs to the server: generate/evalLogits answer BUSY.
Napi::Value Context::ServeOpen(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!CheckUsable(env)) return env.Undefined();
  if (info.Length() < 1 || !info[0].IsFunction()) {
    ThrowError(env, "BAD_ARGUMENT", "serveOpen(onEvent: (event) => void)");
    return env.Undefined();
  }
  if (draft_) {
    ThrowError(env, "BUSY", "a context with a draft does not serve several sequences (detachDraft() first)");
    return env.Undefined();
  }
  auto tsfn = Napi::ThreadSafeFunction::New(env, info[0].As<Napi::Function>(), "ramforge-serve", 0, 1);
  busy_.store(true);
  server_ = std::make_unique<BatchServer>(this, std::move(tsfn));
  return env.Undefined();
}

// serveSubmit(promptTokens, {maxTokens, temperature, …}) -> request id
Napi::Value Context::ServeSubmit(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!server_) {
    ThrowError(env, "NOT_SERVING", "serveOpen() first");
    return env.Undefined();
  }
  std::string err;
  auto toks = TokensFrom(info.Length() > 0 ? info[0] : env.Undefined(), llama_vocab_n_tokens(model_->vocab()), &err);
  if (err.empty() && toks.empty()) err = "empty prompt: nothing to condition on";
  SamplingOpts s;
  if (err.empty()) err = ParseSampling(info.Length() > 1 && info[1].IsObject() ? info[1].As<Napi::Object>() : Napi::Object::New(env), &s);
  if (!err.empty()) {
    ThrowError(env, "BAD_ARGUMENT", err);
    return env.Undefined();
  }
  return Napi::Number::New(env, server_->Submit(std::move(toks), s));
}

Napi::Value Context::ServeCancel(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (server_ && info.Length() > 0 && info[0].IsNumber()) server_->Cancel(info[0].As<Napi::Number>().Int32Value());
  return env.Undefined();
}

// Blocks until the loop thread has ended every request (each gets its 'done' event).
Napi::Value Context::ServeClose(const Napi::CallbackInfo& info) {
  if (server_) {
    server_->Close();
    server_.reset();
    busy_.store(false);
  }
  return info.Env().Undefined();
}

Napi::Value Context::ServeInfo(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object o = Napi::Object::New(env);
  o.Set("open", server_ != nullptr);
  o.Set("sequences", ctx_ ? static_cast<double>(llama_n_seq_max(ctx_)) : 0.0);
  o.Set("queued", server_ ? server_->queued() : 0);
  o.Set("active", server_ ? server_->active() : 0);
  return o;
}

Napi::Value Context::Cancel(const Napi::CallbackInfo& info) {
  cancel_.store(true);
  return info.Env().Undefined();
}

Napi::Value Context::ClearMemory(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!CheckUsable(env)) return env.Undefined();
  llama_memory_clear(llama_get_memory(ctx_), true);
  cached_.clear();
  return env.Undefined();
}

Napi::Value Context::Info(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!ctx_) {
    ThrowError(env, "FREED", "context has been freed");
    return env.Undefined();
  }
  Napi::Object o = Napi::Object::New(env);
  o.Set("nCtx", llama_n_ctx(ctx_));
  o.Set("nBatch", llama_n_batch(ctx_));
  o.Set("nThreads", llama_n_threads(ctx_));
  o.Set("cachedTokens", static_cast<double>(cached_.size()));
  o.Set("prechargedBytes", precharged_bytes_);
  return o;
}

Napi::Value Context::Free(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (busy_.load()) {
    ThrowError(env, "BUSY", "the context is generating; cancel() and wait first");
    return env.Undefined();
  }
  Release();
  return env.Undefined();
}

Napi::Value TensorInventory(Napi::Env env, const llama_model* model) {
  const auto& map = llama_internal_get_tensor_map(model);
  Napi::Array out = Napi::Array::New(env, map.size());
  uint32_t i = 0;
  for (const auto& [name, t] : map) {
    Napi::Object o = Napi::Object::New(env);
    o.Set("name", name);
    o.Set("type", ggml_type_name(t->type));
    o.Set("bytes", Napi::Number::New(env, static_cast<double>(ggml_nbytes(t))));
    o.Set("addr", Napi::Number::New(env, static_cast<double>(reinterpret_cast<uintptr_t>(t->data))));
    if (t->buffer) {
      o.Set("buffer", ggml_backend_buffer_name(t->buffer));
      o.Set("host", ggml_backend_buffer_is_host(t->buffer));
    } else {
      o.Set("buffer", env.Null());
      o.Set("host", true);
    }
    out.Set(i++, o);
  }
  return out;
}

}  // namespace rf
