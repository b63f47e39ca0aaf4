// Model handle: shares ownership of one llama_model with the contexts made from it. Explicit
// free() is refused while a context lives; the weights themselves go when the last owner lets
// go, so no order of finalization (GC, environment teardown) frees memory a context still uses.
#pragma once
#include <napi.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "llama.h"

namespace rf {

class Model : public Napi::ObjectWrap<Model> {
 public:
  static void Init(Napi::Env env, Napi::Object exports);
  // overrides: metadata the load read in place of the file's (kvOverrides); info() reports them.
  static Napi::Object Wrap(Napi::Env env, llama_model* model, std::vector<std::string> paths, double loadMs,
                           std::vector<std::pair<std::string, std::string>> overrides = {});
  static bool Is(Napi::Object o) { return o.InstanceOf(constructor_.Value()); }
  explicit Model(const Napi::CallbackInfo& info);
  ~Model() override;

  llama_model* get() const { return model_; }
  const llama_vocab* vocab() const { return llama_model_get_vocab(model_); }
  const std::vector<std::string>& paths() const { return paths_; }
  // A context's share of the weights (taken when it is created, dropped after llama_free).
  std::shared_ptr<llama_model> share() const { return owner_; }
  // Contexts holding a share: every owner but this handle.
  long live_contexts() const { return owner_ ? owner_.use_count() - 1 : 0; }

  // Throws a JS error (and returns false) when the model has been freed.
  bool CheckAlive(Napi::Env env) const;

 private:
  static Napi::FunctionReference constructor_;

  Napi::Value Info(const Napi::CallbackInfo& info);
  Napi::Value Tokenize(const Napi::CallbackInfo& info);
  Napi::Value TokenToPiece(const Napi::CallbackInfo& info);
  Napi::Value Detokenize(const Napi::CallbackInfo& info);
  Napi::Value IsEog(const Napi::CallbackInfo& info);
  Napi::Value ApplyChatTemplate(const Napi::CallbackInfo& info);
  Napi::Value CreateContext(const Napi::CallbackInfo& info);
  Napi::Value Tensors(const Napi::CallbackInfo& info);
  Napi::Value Free(const Napi::CallbackInfo& info);

  llama_model* model_ = nullptr;  // == owner_.get() until free()
  std::shared_ptr<llama_model> owner_;
  std::vector<std::string> paths_;
  std::vector<std::pair<std::string, std::string>> overrides_;
  double load_ms_ = 0;
};

// loadModel(paths: string[], opts, onProgress?) -> Promise<Model>; the load runs on a libuv
// pool thread, progress comes back through a thread-safe function.
Napi::Value LoadModel(const Napi::CallbackInfo& info);

}  // namespace rf
