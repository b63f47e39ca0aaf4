#include <chrono>
#include <cmath>

#include "common.h"
#include "model.h"

namespace rf {
namespace {

struct ProgressState {
  Napi::ThreadSafeFunction tsfn;
  bool has_tsfn = false;
  int last_percent = -1;
};

bool OnProgress(float progress, void* user) {
  auto* st = static_cast<ProgressState*>(user);
  if (!st->has_tsfn) return true;
  int pct = static_cast<int>(std::floor(progress * 100));
  if (pct == st->last_percent) return true;
  st->last_percent = pct;
  auto* value = new float(progress);
  st->tsfn.NonBlockingCall(value, [](Napi::Env env, Napi::Function cb, float* v) {
    cb.Call({Napi::Number::New(env, *v)});
    delete v;
  });
  return true;
}

class LoadWorker : public Napi::AsyncWorker {
 public:
  LoadWorker(Napi::Env env, std::vector<std::string> paths, llama_model_params params)
      : Napi::AsyncWorker(env), deferred_(Napi::Promise::Deferred::New(env)), paths_(std::move(paths)), params_(params) {}

  ~LoadWorker() override {
    if (progress_.has_tsfn) progress_.tsfn.Release();
  }

  void SetProgress(Napi::Function fn) {
    progress_.tsfn = Napi::ThreadSafeFunction::New(Env(), fn, "ramforge-load-progress", 0, 1);
    progress_.has_tsfn = true;
  }

  Napi::Promise Promise() { return deferred_.Promise(); }

  void Execute() override {
    LogMark();
    params_.progress_callback = OnProgress;
    params_.progress_callback_user_data = &progress_;
    auto t0 = std::chrono::steady_clock::now();
    if (paths_.size() == 1) {
      model_ = llama_model_load_from_file(paths_[0].c_str(), params_);
    } else {
      std::vector<const char*> c;
      for (auto& p : paths_) c.push_back(p.c_str());
      model_ = llama_model_load_from_splits(c.data(), c.size(), params_);
    }
    load_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (!model_) {
      std::string why = LogErrorsSinceMark();
      SetError("failed to load model '" + paths_[0] + "'" + (why.empty() ? "" : ": " + why));
    }
  }

  void OnOK() override {
    deferred_.Resolve(Model::Wrap(Env(), model_, paths_, load_ms_));
  }

  void OnError(const Napi::Error& e) override {
    deferred_.Reject(MakeError(Env(), "LOAD_FAILED", e.Message()).Value());
  }

 private:
  Napi::Promise::Deferred deferred_;
  std::vector<std::string> paths_;
  llama_model_params params_;
  ProgressState progress_;
  llama_model* model_ = nullptr;
  double load_ms_ = 0;
};

bool GetBool(const Napi::Object& o, const char* key, bool def) {
  if (!o.Has(key)) return def;
  Napi::Value v = o.Get(key);
  return v.IsBoolean() ? v.As<Napi::Boolean>().Value() : def;
}

}  // namespace

Napi::Value LoadModel(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsArray()) {
    ThrowError(env, "BAD_ARGUMENT", "loadModel(paths: string[], options?, onProgress?)");
    return env.Undefined();
  }
  Napi::Array arr = info[0].As<Napi::Array>();
  std::vector<std::string> paths;
  for (uint32_t i = 0; i < arr.Length(); i++) {
    Napi::Value v = arr.Get(i);
    if (!v.IsString()) {
      ThrowError(env, "BAD_ARGUMENT", "model paths must be strings");
      return env.Undefined();
    }
    paths.push_back(v.As<Napi::String>().Utf8Value());
  }
  if (paths.empty()) {
    ThrowError(env, "BAD_ARGUMENT", "no model path given");
    return env.Undefined();
  }
  llama_model_params params = llama_model_default_params();
  params.n_gpu_layers = 0;
  if (info.Length() > 1 && info[1].IsObject()) {
    Napi::Object o = info[1].As<Napi::Object>();
    params.load_mode = GetBool(o, "mmap", true) ? LLAMA_LOAD_MODE_MMAP : LLAMA_LOAD_MODE_NONE;
    params.use_extra_bufts = GetBool(o, "repack", true);
    params.vocab_only = GetBool(o, "vocabOnly", false);
    if (o.Has("gpuLayers") && o.Get("gpuLayers").IsNumber()) params.n_gpu_layers = o.Get("gpuLayers").As<Napi::Number>().Int32Value();
  } else {
    params.load_mode = LLAMA_LOAD_MODE_MMAP;
  }
  auto* worker = new LoadWorker(env, std::move(paths), params);
  if (info.Length() > 2 && info[2].IsFunction()) worker->SetProgress(info[2].As<Napi::Function>());
  Napi::Promise promise = worker->Promise();
  worker->Queue();
  return promise;
}

}  // namespace rf
