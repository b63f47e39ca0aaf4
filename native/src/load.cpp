#include <chrono>
#include <cmath>
#include <cstdio>
#include <regex>

#include "common.h"
#include "devices.h"
#include "ggml-cpu.h"
#include "model.h"
#include "residency_args.h"

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

// Where the weights go: the offload devices (nullptr-terminated, as llama_model_params wants),
// their shares of the offloaded layers, and the tensors kept on the CPU whatever their layer.
// Owned by the load so the pointers handed to llama.cpp live until it returns.
struct Placement {
  std::vector<ggml_backend_dev_t> devices{nullptr};
  std::vector<float> split;
  std::vector<std::string> cpu_patterns;
  std::vector<llama_model_tensor_buft_override> overrides;

  void Apply(llama_model_params* p) {
    p->devices = devices.data();
    if (!split.empty()) {
      split.resize(std::max(split.size(), llama_max_devices()), 0.0f);
      p->tensor_split = split.data();
    }
    overrides.clear();
    for (const auto& pat : cpu_patterns) overrides.push_back({pat.c_str(), ggml_backend_cpu_buffer_type()});
    if (!overrides.empty()) {
      overrides.push_back({nullptr, nullptr});
      p->tensor_buft_overrides = overrides.data();
    }
  }
};

class LoadWorker : public Napi::AsyncWorker {
 public:
  LoadWorker(Napi::Env env, std::vector<std::string> paths, llama_model_params params, Placement placement)
      : Napi::AsyncWorker(env), deferred_(Napi::Promise::Deferred::New(env)), paths_(std::move(paths)), params_(params), placement_(std::move(placement)) {
    placement_.Apply(&params_);
  }

  ~LoadWorker() override {
    if (progress_.has_tsfn) progress_.tsfn.Release();
  }

  // Integer metadata read in place of the file's (llama.cpp's --override-kv KEY=int:N), kept
  // here so the array llama.cpp reads lives until the load returns; ends with an empty key.
  void SetKvOverrides(const std::vector<std::pair<std::string, int64_t>>& kv) {
    kv_.clear();
    for (const auto& [key, value] : kv) {
      llama_model_kv_override o{};
      o.tag = LLAMA_KV_OVERRIDE_TYPE_INT;
      std::snprintf(o.key, sizeof(o.key), "%s", key.c_str());
      o.val_i64 = value;
      kv_.push_back(o);
    }
    if (kv_.empty()) return;
    kv_.push_back(llama_model_kv_override{});
    params_.kv_overrides = kv_.data();
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
    std::vector<std::pair<std::string, std::string>> overrides;
    for (const auto& o : kv_)
      if (o.key[0]) overrides.emplace_back(o.key, std::to_string(o.val_i64));
    deferred_.Resolve(Model::Wrap(Env(), model_, paths_, load_ms_, std::move(overrides)));
  }

  void OnError(const Napi::Error& e) override {
    deferred_.Reject(MakeError(Env(), "LOAD_FAILED", e.Message()).Value());
  }

 private:
  Napi::Promise::Deferred deferred_;
  std::vector<std::string> paths_;
  llama_model_params params_;
  Placement placement_;
  std::vector<llama_model_kv_override> kv_;
  ProgressState progress_;
  llama_model* model_ = nullptr;
  double load_ms_ = 0;
};

bool GetBool(const Napi::Object& o, const char* key, bool def) {
  if (!o.Has(key)) return def;
  Napi::Value v = o.Get(key);
  return v.IsBoolean() ? v.As<Napi::Boolean>().Value() : def;
}

// A string[] option, or an error naming it.
bool GetStrings(const Napi::Object& o, const char* key, std::vector<std::string>* out, std::string* err) {
  if (!o.Has(key) || o.Get(key).IsUndefined()) return true;
  if (!o.Get(key).IsArray()) return *err = std::string(key) + " must be an array of strings", false;
  Napi::Array a = o.Get(key).As<Napi::Array>();
  for (uint32_t i = 0; i < a.Length(); i++) {
    if (!a.Get(i).IsString()) return *err = std::string(key) + " must be an array of strings", false;
    out->push_back(a.Get(i).As<Napi::String>().Utf8Value());
  }
  return true;
}

// kvOverrides: [{ key, int }], integer metadata in place of the file's (e.g. an MoE's
// "<arch>.expert_used_count": fewer experts per token than the model was trained with).
bool ReadKvOverrides(const Napi::Object& o, std::vector<std::pair<std::string, int64_t>>* kv, std::string* err) {
  if (!o.Has("kvOverrides") || o.Get("kvOverrides").IsUndefined()) return true;
  const char* shape = "kvOverrides must be an array of { key: string (under 128 bytes), int: integer }";
  if (!o.Get("kvOverrides").IsArray()) return (*err = shape, false);
  Napi::Array a = o.Get("kvOverrides").As<Napi::Array>();
  for (uint32_t i = 0; i < a.Length(); i++) {
    Napi::Value v = a.Get(i);
    if (!v.IsObject()) return (*err = shape, false);
    Napi::Object e = v.As<Napi::Object>();
    if (!e.Get("key").IsString() || !IsSafeInt(e.Get("int"), -9007199254740991.0, 9007199254740991.0)) return (*err = shape, false);
    std::string key = e.Get("key").As<Napi::String>().Utf8Value();
    if (key.empty() || key.size() >= 128) return (*err = shape, false);
    kv->emplace_back(key, e.Get("int").As<Napi::Number>().Int64Value());
  }
  return true;
}

// devices (names, after the RPC servers are registered), tensorSplit and cpuTensors. Without
// devices nothing is offloaded: llama.cpp would otherwise use every GPU it sees.
bool ReadPlacement(const Napi::Object& o, Placement* pl, std::string* err) {
  std::vector<std::string> servers, names;
  if (!GetStrings(o, "rpcServers", &servers, err) || !GetStrings(o, "devices", &names, err) || !GetStrings(o, "cpuTensors", &pl->cpu_patterns, err)) return false;
  for (const auto& ep : servers)
    if (!RegisterRpcServer(ep, err)) return false;
  pl->devices.clear();
  for (const auto& n : names) {
    ggml_backend_dev_t d = nullptr;
    if (n.rfind("rpc:", 0) == 0) {
      // An RPC node by its endpoint: its first device (our rpc-server serves one, its CPU).
      ggml_backend_reg_t reg = RegisterRpcServer(n.substr(4), err);
      if (!reg) return false;
      if (ggml_backend_reg_dev_count(reg) > 0) d = ggml_backend_reg_dev_get(reg, 0);
    } else {
      d = ggml_backend_dev_by_name(n.c_str());
    }
    if (!d) return *err = "no device named '" + n + "' (ramforge devices lists them)", false;
    pl->devices.push_back(d);
  }
  pl->devices.push_back(nullptr);
  for (const auto& pat : pl->cpu_patterns) {
    try {
      std::regex re(pat);
    } catch (const std::regex_error&) {
      return *err = "cpuTensors: '" + pat + "' is not a regular expression", false;
    }
  }
  if (o.Has("tensorSplit") && !o.Get("tensorSplit").IsUndefined()) {
    if (!o.Get("tensorSplit").IsArray()) return *err = "tensorSplit must be an array of numbers", false;
    Napi::Array a = o.Get("tensorSplit").As<Napi::Array>();
    if (a.Length() > llama_max_devices()) return *err = "tensorSplit has more entries than llama.cpp has devices", false;
    for (uint32_t i = 0; i < a.Length(); i++) {
      if (!a.Get(i).IsNumber() || !(a.Get(i).As<Napi::Number>().DoubleValue() >= 0)) return *err = "tensorSplit must be an array of numbers ≥ 0", false;
      pl->split.push_back(a.Get(i).As<Napi::Number>().FloatValue());
    }
  }
  return true;
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
  // With a GPU device llama.cpp would put the CPU's weights in the device's pinned host buffer
  // (Vulkan_Host): a copy in anonymous memory instead of the file mapping, which the residency
  // engine neither streams nor releases, and which doubles what the weights hold in RAM.
  params.no_host = true;
  Placement placement;
  std::vector<std::pair<std::string, int64_t>> kv;
  if (info.Length() > 1 && info[1].IsObject()) {
    Napi::Object o = info[1].As<Napi::Object>();
    std::string err;
    if (!ReadPlacement(o, &placement, &err) || !ReadKvOverrides(o, &kv, &err)) {
      ThrowError(env, "BAD_ARGUMENT", err);
      return env.Undefined();
    }
    params.load_mode = GetBool(o, "mmap", true) ? LLAMA_LOAD_MODE_MMAP : LLAMA_LOAD_MODE_NONE;
    params.use_extra_bufts = GetBool(o, "repack", true);
    params.vocab_only = GetBool(o, "vocabOnly", false);
    if (o.Has("gpuLayers") && o.Get("gpuLayers").IsNumber()) params.n_gpu_layers = o.Get("gpuLayers").As<Napi::Number>().Int32Value();
  } else {
    params.load_mode = LLAMA_LOAD_MODE_MMAP;
  }
  auto* worker = new LoadWorker(env, std::move(paths), params, std::move(placement));
  worker->SetKvOverrides(kv);
  if (info.Length() > 2 && info[2].IsFunction()) worker->SetProgress(info[2].As<Napi::Function>());
  Napi::Promise promise = worker->Promise();
  worker->Queue();
  return promise;
}

}  // namespace rf
