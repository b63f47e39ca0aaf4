// Module entry: version and system info, backends, model loading, file-cache helpers.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <malloc.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "common.h"
#include "context.h"
#include "devices.h"
#include "gpu_js.h"
#include "ggml-backend.h"
#include "llama.h"
#include "model.h"
#include "pages.h"

namespace rf {
namespace {

Napi::Value SystemInfo(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object o = Napi::Object::New(env);
  o.Set("system", llama_print_system_info());
  o.Set("mmapSupported", llama_supports_mmap());
  o.Set("mlockSupported", llama_supports_mlock());
  o.Set("gpuOffload", llama_supports_gpu_offload());
  Napi::Array devs = Napi::Array::New(env);
  for (size_t i = 0; i < ggml_backend_dev_count(); i++) devs.Set(devs.Length(), DeviceObject(env, ggml_backend_dev_get(i)));
  o.Set("devices", devs);
  return o;
}

// fileResident(path, ranges: [offset, len][]) -> number[]: page-cache residency of file ranges,
// measured through a fresh private view of the file (independent of the model's mapping).
Napi::Value FileResident(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 2 || !info[0].IsString() || !info[1].IsArray()) {
    ThrowError(env, "BAD_ARGUMENT", "fileResident(path: string, ranges: [offset, len][])");
    return env.Undefined();
  }
  std::string path = info[0].As<Napi::String>().Utf8Value();
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    ThrowError(env, "IO_ERROR", "cannot open " + path + ": " + std::strerror(errno));
    return env.Undefined();
  }
  struct stat st;
  fstat(fd, &st);
  const size_t size = static_cast<size_t>(st.st_size);
  void* m = size ? mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0) : MAP_FAILED;
  close(fd);
  if (m == MAP_FAILED) {
    ThrowError(env, "IO_ERROR", "cannot map " + path);
    return env.Undefined();
  }
  const size_t page = PageSize();
  Napi::Array ranges = info[1].As<Napi::Array>();
  Napi::Array out = Napi::Array::New(env, ranges.Length());
  for (uint32_t i = 0; i < ranges.Length(); i++) {
    Napi::Array r = ranges.Get(i).As<Napi::Array>();
    size_t off = static_cast<size_t>(r.Get(0u).As<Napi::Number>().Int64Value());
    size_t len = static_cast<size_t>(r.Get(1u).As<Napi::Number>().Int64Value());
    size_t beg = off & ~(page - 1);
    size_t end = std::min(size, off + len);
    out.Set(i, beg < end ? std::max(0.0, ResidentBytesIn(static_cast<char*>(m) + beg, end - beg)) : 0.0);
  }
  munmap(m, size);
  return out;
}

// residentBytes(layers: [addr, len, ...][][]) -> (number|null)[]: mincore over each layer's
// ranges without touching them (observation for policies that install no engine).
Napi::Value ResidentBytes(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsArray()) {
    ThrowError(env, "BAD_ARGUMENT", "residentBytes(layers: number[][][])");
    return env.Undefined();
  }
  Napi::Array layers = info[0].As<Napi::Array>();
  Napi::Array out = Napi::Array::New(env, layers.Length());
  const size_t page = PageSize();
  for (uint32_t i = 0; i < layers.Length(); i++) {
    Napi::Array ranges = layers.Get(i).As<Napi::Array>();
    double total = 0;
    bool ok = true;
    for (uint32_t j = 0; j < ranges.Length() && ok; j++) {
      Napi::Array r = ranges.Get(j).As<Napi::Array>();
      auto addr = static_cast<uintptr_t>(r.Get(0u).As<Napi::Number>().Int64Value());
      auto len = static_cast<size_t>(r.Get(1u).As<Napi::Number>().Int64Value());
      if (addr % page != 0) {
        ok = false;
        break;
      }
      double b = ResidentBytesIn(reinterpret_cast<void*>(addr), len);
      if (b < 0) {
        ok = false;
        break;
      }
      total += b;
    }
    out.Set(i, ok ? Napi::Value(Napi::Number::New(env, total)) : env.Null());
  }
  return out;
}

// trimHeap() -> bytes the allocator gave back: llama.cpp's loader frees large temporaries
// (metadata, tokenizer tables being built) on pool threads whose arenas keep the pages; under a
// memory cap those pages are charged until handed back.
Napi::Value TrimHeap(const Napi::CallbackInfo& info) {
  auto rss = []() -> double {
    long pages = 0, resident = 0;
    FILE* f = std::fopen("/proc/self/statm", "r");
    if (!f) return -1;
    int n = std::fscanf(f, "%ld %ld", &pages, &resident);
    std::fclose(f);
    return n == 2 ? static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) : -1;
  };
  double before = rss();
  malloc_trim(0);
  double after = rss();
  return Napi::Number::New(info.Env(), before >= 0 && after >= 0 ? before - after : 0);
}

}  // namespace

Napi::Value MeasureRead(const Napi::CallbackInfo& info);
Napi::Value SameBytes(const Napi::CallbackInfo& info);
Napi::Value ShareWeightsJs(const Napi::CallbackInfo& info);

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  InstallLogCapture();
  llama_backend_init();
  Model::Init(env, exports);
  Context::Init(env, exports);
  exports.Set("systemInfo", Napi::Function::New(env, SystemInfo));
  exports.Set("loadModel", Napi::Function::New(env, LoadModel));
  exports.Set("listDevices", Napi::Function::New(env, ListDevices));
  exports.Set("socketStats", Napi::Function::New(env, SocketStats));
  exports.Set("keepRpcAlive", Napi::Function::New(env, KeepRpcAlive));
  exports.Set("residentBytes", Napi::Function::New(env, ResidentBytes));
  exports.Set("fileResident", Napi::Function::New(env, FileResident));
  exports.Set("measureRead", Napi::Function::New(env, MeasureRead));
  exports.Set("trimHeap", Napi::Function::New(env, TrimHeap));
  exports.Set("sameBytes", Napi::Function::New(env, SameBytes));
  exports.Set("shareWeights", Napi::Function::New(env, ShareWeightsJs));
  RegisterGpu(env, exports);
  return exports;
}

}  // namespace rf

static Napi::Object InitModule(Napi::Env env, Napi::Object exports) { return rf::Init(env, exports); }

NODE_API_MODULE(ramforge, InitModule)
