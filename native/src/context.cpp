#include "context.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>

#include "common.h"
#include "ggml-backend.h"
#include "ggml.h"
#include "model.h"
#include "residency.h"
#include "routing_js.h"
#include "sampling.h"
#include "batch.h"
#include "embed.h"
#include "generate.h"
#include "grammar.h"
#include "llama_internal.h"


namespace rf {

Napi::FunctionReference Context::constructor_;

namespace {

int GetInt(const Napi::Object& o, const char* key, int def) {
  if (!o.Has(key)) return def;
  Napi::Value v = o.Get(key);
  return v.IsNumber() ? v.As<Napi::Number>().Int32Value() : def;
}

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
                                      InstanceMethod("embed", &Context::Embed),
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
                                      InstanceMethod("routingTake", &Context::RoutingTake),
                                      InstanceMethod("routingActive", &Context::RoutingActive),
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
  if (opts.Has("embeddings") && opts.Get("embeddings").ToBoolean().Value()) {
    // As llama-server's /v1/embeddings: the mean of the hidden states, one vector per text. A
    // text is decoded in one micro-batch, so the pooling sees all of it.
    embeddings_ = true;
    p.embeddings = true;
    p.pooling_type = LLAMA_POOLING_TYPE_MEAN;
    p.n_ubatch = p.n_batch;
    // llama-server's --pooling none: no pooling, a vector per token (every position is an
    // output of an embeddings context either way, so it costs no more memory).
    if (opts.Has("pooling") && !opts.Get("pooling").IsUndefined()) {
      Napi::Value pooling = opts.Get("pooling");
      std::string name = pooling.IsString() ? pooling.As<Napi::String>().Utf8Value() : "";
      if (name != "mean" && name != "none") {
        ThrowError(env, "BAD_ARGUMENT", "pooling must be 'mean' or 'none'");
        return;
      }
      per_token_ = name == "none";
      if (per_token_) p.pooling_type = LLAMA_POOLING_TYPE_NONE;
    }
  }
  bool callback = false;
  std::string rerr;
  residency_ = MakeResidency(opts, &callback, &rerr);
  if (!rerr.empty()) {
    ThrowError(env, "BAD_ARGUMENT", rerr);
    return;
  }
  if (callback) {
    p.cb_eval = Residency::EvalCallback;
    p.cb_eval_user_data = residency_.get();
    // A large micro-batch's op on a host weight would otherwise run on a GPU from a copy of the
    // whole tensor, made when its split starts: before the residency engine has put the bytes
    // the op needs where the tensor points (an expert cache's slots hold a few experts only).
    p.op_offload = false;
  }
  LogMark();
  ctx_.reset(llama_init_from_model(model_->get(), p));
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
    ctx_.reset();
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
  if (err.empty() && static_cast<int>(toks.size()) >= static_cast<int>(llama_n_ctx(ctx_.get()))) err = "too many tokens for the context";
  if (!err.empty()) {
    ThrowError(env, "BAD_ARGUMENT", err);
    return env.Undefined();
  }
  LogMark();
  llama_memory_clear(llama_get_memory(ctx_.get()), true);
  cached_.clear();
  if (!DecodeTokens(this, toks.data(), static_cast<int>(toks.size()), n_batch_, &err)) {
    ThrowError(env, "DECODE_FAILED", err);
    return env.Undefined();
  }
  const float* logits = llama_get_logits_ith(ctx_.get(), -1);
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
  // Speculative verification samples the draft's positions in a row: a grammar would need its
  // state rolled back for every rejected draft token, which llama.cpp's sampler cannot do.
  if (serr.empty() && !s.grammar.empty() && draft_) serr = "a grammar cannot be used with a draft model (speculative decoding)";
  if (serr.empty() && !s.grammar.empty()) serr = CheckGrammar(model_->vocab(), s.grammar);
  if (!serr.empty()) {
    ThrowError(env, "BAD_ARGUMENT", serr);
    return env.Undefined();
  }
  Napi::Function cb = info.Length() > 2 && info[2].IsFunction() ? info[2].As<Napi::Function>() : Napi::Function();
  cancel_.store(false);
  busy_.store(true);
  return QueueGenerate(env, this, Value(), std::move(toks), s, cb);
}

// embed(tokens) -> Promise<Float32Array>: the mean-pooled hidden state of the text (a context
// made with {embeddings: true}; at most nBatch tokens), or with {pooling: 'none'} every token's,
// one after the other (n_tokens × n_embd floats).
Napi::Value Context::Embed(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!CheckUsable(env)) return env.Undefined();
  std::string err = embeddings_ ? "" : "this context was not made for embeddings (createContext({embeddings: true}))";
  std::vector<llama_token> toks;
  if (err.empty()) toks = TokensFrom(info.Length() > 0 ? info[0] : env.Undefined(), llama_vocab_n_tokens(model_->vocab()), &err);
  if (err.empty() && toks.empty()) err = "no tokens to embed";
  // All of a text in one micro-batch (the pooling sees one micro-batch at a time).
  const int most = static_cast<int>(std::min(llama_n_ubatch(ctx_.get()), llama_n_ctx(ctx_.get())));
  if (err.empty() && static_cast<int>(toks.size()) > most)
    err = "input has " + std::to_string(toks.size()) + " tokens; embeddings take at most " + std::to_string(most);
  if (!err.empty()) {
    ThrowError(env, "BAD_ARGUMENT", err);
    return env.Undefined();
  }
  busy_.store(true);
  return QueueEmbed(env, this, Value(), std::move(toks), per_token_);
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
  if (err.empty() && !s.grammar.empty()) err = CheckGrammar(model_->vocab(), s.grammar);
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
  o.Set("sequences", ctx_ ? static_cast<double>(llama_n_seq_max(ctx_.get())) : 0.0);
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
  llama_memory_clear(llama_get_memory(ctx_.get()), true);
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
  o.Set("nCtx", llama_n_ctx(ctx_.get()));
  o.Set("nBatch", llama_n_batch(ctx_.get()));
  o.Set("nThreads", llama_n_threads(ctx_.get()));
  o.Set("cachedTokens", static_cast<double>(cached_.size()));
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
