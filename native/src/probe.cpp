// measureRead(path, {bytes, chunkBytes, threads, offset, scatter}) -> Promise<{bytes, seconds, direct}>: how
// fast the device holding a file reads (`bytes` from `offset`, a multiple of 2 MiB), measured the way the stream schedule reads (direct I/O,
// several requests in flight, into 2 MiB pages) so the page cache cannot flatter it. With
// `scatter`, the requests land all over the file instead (a fixed permutation of its chunks),
// the way the expert cache reads, so neither the host's cache of a recently read region nor its
// read-ahead of a sequential one can flatter it either. Where the
// file system refuses O_DIRECT, the file's pages are dropped from the cache first and it is read
// through the cache (still a cold read). Runs on a pool thread.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <numeric>
#include <thread>
#include <vector>

#include "common.h"

namespace rf {
namespace {

constexpr size_t kHuge = 2u << 20;

class ProbeWorker : public Napi::AsyncWorker {
 public:
  ProbeWorker(Napi::Env env, std::string path, size_t bytes, size_t chunk, int threads, size_t offset, bool scatter)
      : Napi::AsyncWorker(env), deferred_(Napi::Promise::Deferred::New(env)), path_(std::move(path)), bytes_(bytes), chunk_(chunk), threads_(threads), offset_(offset), scatter_(scatter) {}
  Napi::Promise Promise() { return deferred_.Promise(); }

  void Execute() override {
    int fd = open(path_.c_str(), O_RDONLY | O_CLOEXEC | O_DIRECT);
    direct_ = fd >= 0;
    if (!direct_) fd = open(path_.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return SetError("cannot open " + path_ + ": " + std::strerror(errno));
    struct stat st;
    fstat(fd, &st);
    size_t end = static_cast<size_t>(st.st_size) & ~(kHuge - 1);
    if (scatter_) offset_ = 0;
    size_t total = offset_ < end ? std::min(bytes_, end - offset_) : 0;
    // Scattered: request k reads chunk (k·stride mod n) of the file's n, stride coprime to n so
    // no chunk is read twice, and about 0.618·n so neighbouring requests land far apart.
    const size_t n = chunk_ > 0 ? end / chunk_ : 0;
    size_t stride = std::max<size_t>(1, static_cast<size_t>(0.6180339887 * static_cast<double>(n)));
    while (n > 1 && std::gcd(stride, n) != 1) stride++;
    if (scatter_) total = std::min(total, n * chunk_);
    // Each probe starts at its own place in the permutation: chunks an earlier probe read may
    // still be in the host's cache.
    const size_t start = n > 0 ? static_cast<size_t>(std::chrono::steady_clock::now().time_since_epoch().count()) % n : 0;
    if (total < chunk_) {
      close(fd);
      return SetError("the file is too small to measure (" + std::to_string(st.st_size) + " bytes)");
    }
    if (!direct_) posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    size_t per = chunk_ * static_cast<size_t>(threads_);
    void* m = mmap(nullptr, per + kHuge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) {
      close(fd);
      return SetError(std::string("cannot map a buffer: ") + std::strerror(errno));
    }
    char* buf = reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(m) + kHuge - 1) & ~static_cast<uintptr_t>(kHuge - 1));
    madvise(buf, per, MADV_HUGEPAGE);
    std::memset(buf, 0, per);
    std::atomic<size_t> next{0}, done{0};
    std::atomic<int> err{0};
    auto t0 = std::chrono::steady_clock::now();
    std::vector<std::thread> ts;
    for (int i = 0; i < threads_; i++)
      ts.emplace_back([&, i] {
        char* b = buf + static_cast<size_t>(i) * chunk_;
        for (;;) {
          size_t off = next.fetch_add(chunk_);
          if (off >= total) return;
          const size_t at = scatter_ ? ((off / chunk_ + start) * stride % n) * chunk_ : offset_ + off;
          ssize_t r = pread(fd, b, std::min(chunk_, total - off), static_cast<off_t>(at));
          if (r < 0 && errno == EINTR) continue;
          if (r <= 0) {
            err = r < 0 ? errno : EIO;
            return;
          }
          done += static_cast<size_t>(r);
        }
      });
    for (auto& t : ts) t.join();
    seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!direct_) posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    munmap(m, per + kHuge);
    close(fd);
    if (err) return SetError(std::string("reading failed: ") + std::strerror(err));
    read_ = done;
  }

  void OnOK() override {
    Napi::Object o = Napi::Object::New(Env());
    o.Set("bytes", static_cast<double>(read_));
    o.Set("seconds", seconds_);
    o.Set("direct", direct_);
    deferred_.Resolve(o);
  }
  void OnError(const Napi::Error& e) override { deferred_.Reject(MakeError(Env(), "IO_ERROR", e.Message()).Value()); }

 private:
  Napi::Promise::Deferred deferred_;
  std::string path_;
  size_t bytes_, chunk_;
  int threads_;
  size_t offset_;
  bool scatter_;
  bool direct_ = false;
  size_t read_ = 0;
  double seconds_ = 0;
};

double Num(const Napi::Object& o, const char* k, double def) {
  return o.Has(k) && o.Get(k).IsNumber() ? o.Get(k).As<Napi::Number>().DoubleValue() : def;
}

}  // namespace

Napi::Value MeasureRead(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsString()) {
    ThrowError(env, "BAD_ARGUMENT", "measureRead(path: string, opts?: {bytes, chunkBytes, threads})");
    return env.Undefined();
  }
  Napi::Object o = info.Length() > 1 && info[1].IsObject() ? info[1].As<Napi::Object>() : Napi::Object::New(env);
  double bytes = Num(o, "bytes", 512.0 * 1024 * 1024), chunk = Num(o, "chunkBytes", 4.0 * 1024 * 1024), threads = Num(o, "threads", 4);
  double offset = Num(o, "offset", 0);
  bool scatter = o.Has("scatter") && o.Get("scatter").ToBoolean().Value();
  if (!(bytes >= kHuge && bytes <= 64.0 * 1024 * 1024 * 1024) || !(chunk >= 4096 && chunk <= 64.0 * 1024 * 1024) ||
      static_cast<size_t>(chunk) % 4096 != 0 || !(threads >= 1 && threads <= 16) || !(offset >= 0 && offset <= 1099511627776.0) ||
      static_cast<size_t>(offset) % kHuge != 0) {
    ThrowError(env, "BAD_ARGUMENT", "measureRead: bytes 2 MiB..64 GiB, chunkBytes a multiple of 4 KiB up to 64 MiB, threads 1..16, offset a multiple of 2 MiB");
    return env.Undefined();
  }
  auto* w = new ProbeWorker(env, info[0].As<Napi::String>().Utf8Value(), static_cast<size_t>(bytes), static_cast<size_t>(chunk), static_cast<int>(threads), static_cast<size_t>(offset), scatter);
  Napi::Promise p = w->Promise();
  w->Queue();
  return p;
}

}  // namespace rf
