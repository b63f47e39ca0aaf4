#include "embed.h"

#include <cstring>

#include "common.h"
#include "context.h"
#include "model.h"

namespace rf {

namespace {

class EmbedWorker : public Napi::AsyncWorker {
 public:
  EmbedWorker(Napi::Env env, Context* ctx, Napi::Object self, std::vector<llama_token> tokens, bool per_token)
      : Napi::AsyncWorker(env), deferred_(Napi::Promise::Deferred::New(env)), ctx_(ctx), tokens_(std::move(tokens)), per_token_(per_token) {
    self_ref_ = Napi::Persistent(self);
  }
  Napi::Promise Promise() { return deferred_.Promise(); }

  void Execute() override {
    LogCapture capture;
    llama_context* lctx = ctx_->get();
    // Each text from an empty cache: the vector is the text's alone.
    llama_memory_clear(llama_get_memory(lctx), true);
    ctx_->cached().clear();
    llama_batch batch = llama_batch_get_one(tokens_.data(), static_cast<int32_t>(tokens_.size()));
    int rc = llama_decode(lctx, batch);
    if (rc != 0) {
      std::string why = capture.Errors();
      SetError("llama_decode failed (" + std::to_string(rc) + ")" + (why.empty() ? "" : ": " + why));
      return;
    }
    const int n = llama_model_n_embd_out(ctx_->model()->get());
    if (per_token_) {
      // Without pooling every position of the batch is an output: its hidden state, in order.
      out_.clear();
      for (int i = 0; i < static_cast<int>(tokens_.size()); i++) {
        const float* t = llama_get_embeddings_ith(lctx, i);
        if (!t) {
          SetError("llama.cpp returned no embedding for token " + std::to_string(i));
          return;
        }
        out_.insert(out_.end(), t, t + n);
      }
    } else {
      const float* e = llama_get_embeddings_seq(lctx, 0);
      if (!e) {
        SetError("llama.cpp returned no pooled embedding for the sequence");
        return;
      }
      out_.assign(e, e + n);
    }
    llama_memory_clear(llama_get_memory(lctx), true);
  }

  void OnOK() override {
    ctx_->busy().store(false);
    Napi::Float32Array a = Napi::Float32Array::New(Env(), out_.size());
    if (!out_.empty()) std::memcpy(a.Data(), out_.data(), out_.size() * sizeof(float));
    deferred_.Resolve(a);
  }

  void OnError(const Napi::Error& e) override {
    ctx_->busy().store(false);
    deferred_.Reject(MakeError(Env(), "DECODE_FAILED", e.Message()).Value());
  }

 private:
  Napi::Promise::Deferred deferred_;
  Napi::ObjectReference self_ref_;
  Context* ctx_;
  std::vector<llama_token> tokens_;
  bool per_token_;
  std::vector<float> out_;
};

}  // namespace

Napi::Promise QueueEmbed(Napi::Env env, Context* ctx, Napi::Object self, std::vector<llama_token> tokens, bool per_token) {
  auto* w = new EmbedWorker(env, ctx, self, std::move(tokens), per_token);
  Napi::Promise p = w->Promise();
  w->Queue();
  return p;
}

}  // namespace rf
