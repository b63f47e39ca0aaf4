// JS entry points for draft models: which weights a draft shares byte for byte with its
// target (compared off the JS thread), and pointing the draft's copies at the target's.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "common.h"
#include "model.h"
#include "speculative.h"

namespace rf {

namespace {

struct RangePair {
  std::string a, b;
  int64_t a_off = 0, b_off = 0, len = 0;
};

// Reads both ranges in pieces and compares them; the pages read are dropped from the page
// cache after (under a memory cap, a comparison must not leave hundreds of MB charged).
class SameBytesWorker : public Napi::AsyncWorker {
 public:
  SameBytesWorker(Napi::Env env, std::vector<RangePair> pairs)
      : Napi::AsyncWorker(env), deferred_(Napi::Promise::Deferred::New(env)), pairs_(std::move(pairs)) {}
  Napi::Promise Promise() { return deferred_.Promise(); }

  void Execute() override {
    const size_t piece = 4 << 20;
    std::vector<char> x(piece), y(piece);
    for (const auto& p : pairs_) {
      int fa = open(p.a.c_str(), O_RDONLY | O_CLOEXEC), fb = open(p.b.c_str(), O_RDONLY | O_CLOEXEC);
      if (fa < 0 || fb < 0) {
        if (fa >= 0) close(fa);
        if (fb >= 0) close(fb);
        SetError("cannot open " + (fa < 0 ? p.a : p.b) + ": " + std::strerror(errno));
        return;
      }
      // No read-ahead: pages read past a tensor's end would stay cached (and charged) after
      // the per-piece DONTNEED below; the whole of both files is dropped at the end as well.
      posix_fadvise(fa, 0, 0, POSIX_FADV_RANDOM);
      posix_fadvise(fb, 0, 0, POSIX_FADV_RANDOM);
      bool same = true;
      for (int64_t off = 0; off < p.len && same; off += static_cast<int64_t>(piece)) {
        size_t n = static_cast<size_t>(std::min<int64_t>(static_cast<int64_t>(piece), p.len - off));
        if (!ReadAll(fa, x.data(), n, p.a_off + off) || !ReadAll(fb, y.data(), n, p.b_off + off)) {
          same = false;
          break;
        }
        same = std::memcmp(x.data(), y.data(), n) == 0;
        posix_fadvise(fa, p.a_off + off, static_cast<off_t>(n), POSIX_FADV_DONTNEED);
        posix_fadvise(fb, p.b_off + off, static_cast<off_t>(n), POSIX_FADV_DONTNEED);
      }
      posix_fadvise(fa, 0, 0, POSIX_FADV_DONTNEED);
      posix_fadvise(fb, 0, 0, POSIX_FADV_DONTNEED);
      close(fa);
      close(fb);
      result_.push_back(same);
    }
  }

  void OnOK() override {
    Napi::Env env = Env();
    Napi::Array out = Napi::Array::New(env, result_.size());
    for (size_t i = 0; i < result_.size(); i++) out.Set(i, Napi::Boolean::New(env, result_[i]));
    deferred_.Resolve(out);
  }
  void OnError(const Napi::Error& e) override { deferred_.Reject(MakeError(Env(), "IO_ERROR", e.Message()).Value()); }

 private:
  static bool ReadAll(int fd, char* buf, size_t n, int64_t off) {
    size_t done = 0;
    while (done < n) {
      ssize_t r = pread(fd, buf + done, n - done, off + static_cast<int64_t>(done));
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) return false;
      done += static_cast<size_t>(r);
    }
    return true;
  }

  Napi::Promise::Deferred deferred_;
  std::vector<RangePair> pairs_;
  std::vector<bool> result_;
};

}  // namespace

// sameBytes([{a, aOffset, b, bOffset, length}]) -> Promise<boolean[]>
Napi::Value SameBytes(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsArray()) {
    ThrowError(env, "BAD_ARGUMENT", "sameBytes(pairs: {a, aOffset, b, bOffset, length}[])");
    return env.Undefined();
  }
  Napi::Array arr = info[0].As<Napi::Array>();
  std::vector<RangePair> pairs;
  for (uint32_t i = 0; i < arr.Length(); i++) {
    Napi::Value v = arr.Get(i);
    if (!v.IsObject()) {
      ThrowError(env, "BAD_ARGUMENT", "sameBytes: each pair is an object");
      return env.Undefined();
    }
    Napi::Object o = v.As<Napi::Object>();
    RangePair p;
    if (!o.Get("a").IsString() || !o.Get("b").IsString() || !o.Get("aOffset").IsNumber() || !o.Get("bOffset").IsNumber() ||
        !o.Get("length").IsNumber()) {
      ThrowError(env, "BAD_ARGUMENT", "sameBytes: a and b are paths, aOffset, bOffset and length numbers");
      return env.Undefined();
    }
    p.a = o.Get("a").As<Napi::String>().Utf8Value();
    p.b = o.Get("b").As<Napi::String>().Utf8Value();
    p.a_off = o.Get("aOffset").As<Napi::Number>().Int64Value();
    p.b_off = o.Get("bOffset").As<Napi::Number>().Int64Value();
    p.len = o.Get("length").As<Napi::Number>().Int64Value();
    if (p.a_off < 0 || p.b_off < 0 || p.len < 0) {
      ThrowError(env, "BAD_ARGUMENT", "sameBytes: offsets and lengths are not negative");
      return env.Undefined();
    }
    pairs.push_back(std::move(p));
  }
  auto* w = new SameBytesWorker(env, std::move(pairs));
  Napi::Promise p = w->Promise();
  w->Queue();
  return p;
}

// shareWeights(draftModel, targetModel, names) -> bytes shared. Before any context of the
// draft exists: a context reads the weights as they are pointed when it computes.
Napi::Value ShareWeightsJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 3 || !info[0].IsObject() || !info[1].IsObject() || !info[2].IsArray() || !Model::Is(info[0].As<Napi::Object>()) ||
      !Model::Is(info[1].As<Napi::Object>())) {
    ThrowError(env, "BAD_ARGUMENT", "shareWeights(draftModel, targetModel, names: string[])");
    return env.Undefined();
  }
  Model* draft = Model::Unwrap(info[0].As<Napi::Object>());
  Model* target = Model::Unwrap(info[1].As<Napi::Object>());
  if (!draft->CheckAlive(env) || !target->CheckAlive(env)) return env.Undefined();
  if (draft->live_contexts() > 0) {
    ThrowError(env, "BUSY", "share the draft's weights before creating its context");
    return env.Undefined();
  }
  std::vector<std::string> names;
  Napi::Array arr = info[2].As<Napi::Array>();
  for (uint32_t i = 0; i < arr.Length(); i++) {
    if (!arr.Get(i).IsString()) {
      ThrowError(env, "BAD_ARGUMENT", "shareWeights: names are strings");
      return env.Undefined();
    }
    names.push_back(arr.Get(i).As<Napi::String>().Utf8Value());
  }
  double bytes = 0;
  std::string err = ShareWeights(draft->get(), target->get(), names, &bytes);
  if (!err.empty()) {
    ThrowError(env, "BAD_ARGUMENT", err);
    return env.Undefined();
  }
  return Napi::Number::New(env, bytes);
}

}  // namespace rf
