// Context handle: one llama_context (KV cache, compute buffers) on a model. One operation at a
// time; generation runs on a libuv pool thread and streams tokens back through a
// thread-safe function; cancel() flips an atomic flag checked between tokens.
#pragma once
#include <napi.h>

#include <atomic>
#include <memory>
#include <vector>

#include "llama.h"
#include "speculative.h"

namespace rf {

class Model;
class Residency;
class BatchServer;

Napi::Value TensorInventory(Napi::Env env, const llama_model* model);

class Context : public Napi::ObjectWrap<Context> {
 public:
  static void Init(Napi::Env env, Napi::Object exports);
  static bool Is(Napi::Object o) { return o.InstanceOf(constructor_.Value()); }
  static Napi::Value Create(Napi::Env env, Napi::Value model, Napi::Object opts);
  explicit Context(const Napi::CallbackInfo& info);
  ~Context() override;

  llama_context* get() const { return ctx_.get(); }
  Model* model() const { return model_; }
  std::vector<llama_token>& cached() { return cached_; }
  std::atomic<bool>& cancel_flag() { return cancel_; }
  std::atomic<bool>& busy() { return busy_; }
  Residency* residency() const { return residency_.get(); }
  // The draft model's context proposing tokens for this one (speculative decoding), or null.
  Context* draft() const { return draft_; }
  const DraftOpts& draft_opts() const { return draft_opts_; }

 private:
  static Napi::FunctionReference constructor_;

  Napi::Value EvalLogits(const Napi::CallbackInfo& info);
  Napi::Value Generate(const Napi::CallbackInfo& info);
  Napi::Value Embed(const Napi::CallbackInfo& info);
  Napi::Value Cancel(const Napi::CallbackInfo& info);
  Napi::Value ClearMemory(const Napi::CallbackInfo& info);
  Napi::Value Info(const Napi::CallbackInfo& info);
  Napi::Value ResidencyConfigure(const Napi::CallbackInfo& info);
  Napi::Value ResidencySample(const Napi::CallbackInfo& info);
  Napi::Value ResidencyDrop(const Napi::CallbackInfo& info);
  Napi::Value ResidencyPrefetch(const Napi::CallbackInfo& info);
  Napi::Value ResidencyLayerOp(const Napi::CallbackInfo& info, bool drop);
  Napi::Value ServeOpen(const Napi::CallbackInfo& info);
  Napi::Value ServeSubmit(const Napi::CallbackInfo& info);
  Napi::Value ServeCancel(const Napi::CallbackInfo& info);
  Napi::Value ServeClose(const Napi::CallbackInfo& info);
  Napi::Value ServeInfo(const Napi::CallbackInfo& info);
  Napi::Value AttachDraft(const Napi::CallbackInfo& info);
  Napi::Value DetachDraft(const Napi::CallbackInfo& info);
  Napi::Value TraceArm(const Napi::CallbackInfo& info);
  Napi::Value TraceTake(const Napi::CallbackInfo& info);
  Napi::Value RoutingTake(const Napi::CallbackInfo& info);
  Napi::Value RoutingActive(const Napi::CallbackInfo& info);
  bool CheckResidency(Napi::Env env);
  Napi::Value Free(const Napi::CallbackInfo& info);
  bool CheckUsable(Napi::Env env);
  void Release();

  // The llama context's one owner; Release frees it first, before the residency engine and
  // the weights it reads.
  struct ContextFree {
    void operator()(llama_context* c) const { llama_free(c); }
  };
  std::unique_ptr<llama_context, ContextFree> ctx_;
  Model* model_ = nullptr;
  Napi::ObjectReference model_ref_;
  std::shared_ptr<llama_model> weights_;  // this context's share of the model's weights
  std::vector<llama_token> cached_;  // tokens whose KV entries are in sequence 0, in order
  std::atomic<bool> cancel_{false};
  std::atomic<bool> busy_{false};
  std::unique_ptr<Residency> residency_;
  std::unique_ptr<BatchServer> server_;
  int n_batch_ = 512;
  bool embeddings_ = false;  // made for embed(): embeddings on, mean pooling
  bool per_token_ = false;   // {pooling: 'none'}: embed() gives every token's hidden state
  Context* draft_ = nullptr;
  Napi::ObjectReference draft_ref_;  // keeps the draft's context alive while attached
  DraftOpts draft_opts_;
};

}  // namespace rf
