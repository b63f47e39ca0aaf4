#include "residency.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include "ggml.h"
#include "pages.h"

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

namespace rf {

namespace {
double NowMs() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
const size_t kPage = static_cast<size_t>(sysconf(_SC_PAGESIZE));
}  // namespace

Policy PolicyFromString(const std::string& s, bool* ok) {
  *ok = true;
  if (s == "off") return Policy::Off;
  if (s == "observe") return Policy::Observe;
  if (s == "conservative") return Policy::Conservative;
  if (s == "memory-bound") return Policy::MemoryBound;
  if (s == "reuse-aware") return Policy::ReuseAware;
  if (s == "stream") return Policy::Stream;
  *ok = false;
  return Policy::Off;
}

Residency::Residency() : t0_(NowMs()) {}

Residency::~Residency() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  for (auto& t : io_)
    if (t.joinable()) t.join();
  for (int fd : fds_)
    if (fd >= 0) close(fd);
}

double Residency::Now() const { return NowMs() - t0_; }

std::string Residency::Configure(Policy policy, std::vector<ResidencyLayer> layers, const std::vector<std::string>& files,
                                 int prefetch_depth, size_t target_bytes,
                                 std::vector<int> release_order) {
  {
    std::unique_lock<std::mutex> lock(mu_);
    queue_.clear();
    // Wait for in-flight prefetch chunks to finish before the ranges change under them.
    cv_.wait(lock, [&] { return inflight_ == 0; });
  }
  for (int fd : fds_)
    if (fd >= 0) close(fd);
  fds_.clear();
  for (const auto& f : files) {
    int fd = open(f.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return "cannot open " + f + ": " + std::strerror(errno);
    fds_.push_back(fd);
  }
  std::lock_guard<std::mutex> lock(mu_);
  policy_ = policy;
  layers_ = std::move(layers);
  prefetch_depth_ = std::max(0, prefetch_depth);
  target_bytes_ = target_bytes;
  streamed_.clear();
  for (const auto& l : layers_)
    if (l.tier == 1) streamed_.push_back(l.index);
  std::sort(streamed_.begin(), streamed_.end());
  // Default release order for a cyclic scan: the layer the next token needs last goes first.
  release_order_ = release_order.empty() ? std::vector<int>(streamed_.rbegin(), streamed_.rend()) : std::move(release_order);
  state_.assign(layers_.size(), 0);
  pending_.assign(layers_.size(), 0);
  started_at_.assign(layers_.size(), 0);
  current_layer_ = -1;
  if (policy_ == Policy::Stream && io_.empty()) {
    const char* env = std::getenv("RAMFORGE_IO_THREADS");
    int n = env ? std::max(1, std::atoi(env)) : 2;
    for (int i = 0; i < n; i++) io_.emplace_back([this] { IoLoop(); });
  }
  return "";
}

void Residency::Event(int kind, int layer, double bytes, double dur_ms) {
  std::lock_guard<std::mutex> lock(ev_mu_);
  if (events_.size() < 100000) events_.push_back({Now(), kind, layer, bytes, dur_ms});
}

std::vector<ResidencyEventRec> Residency::TakeEvents() {
  std::lock_guard<std::mutex> lock(ev_mu_);
  std::vector<ResidencyEventRec> out;
  out.swap(events_);
  return out;
}

Residency::Counters Residency::counters() {
  std::lock_guard<std::mutex> lock(ev_mu_);
  return counters_;
}

int Residency::PosInStreamed(int layer) const {
  auto it = std::lower_bound(streamed_.begin(), streamed_.end(), layer);
  if (it != streamed_.end() && *it == layer) return static_cast<int>(it - streamed_.begin());
  return -1;
}

bool Residency::EvalCallback(ggml_tensor* t, bool ask, void* user) {
  auto* self = static_cast<Residency*>(user);
  // The first node of each layer is "attn_norm-<il>" in llama, qwen2 and gptneox graphs. The
  // ask==true calls are a look-ahead scan before anything computes; the ask==false call for the
  // same node comes when it has been computed, i.e. when layer il really starts.
  const char* name = t->name;
  if (self->trace_active_) {
    std::lock_guard<std::mutex> lock(self->trace_mu_);
    if (ask) {
      if (self->trace_.nodes.size() < self->trace_max_) {
        TraceNode n;
        n.name = name;
        n.op = ggml_op_desc(t);
        for (int i = 0; i < GGML_MAX_SRC; i++)
          if (t->src[i]) n.srcs.emplace_back(t->src[i]->name);
        n.bytes = static_cast<double>(ggml_nbytes(t));
        n.group = self->trace_group_;
        self->trace_.nodes.push_back(std::move(n));
      } else {
        self->trace_.dropped++;
      }
    } else {
      self->trace_group_++;
    }
  }
  if (std::strncmp(name, "attn_norm-", 10) != 0) return ask ? false : true;
  if (ask) return true;
  self->OnLayerStart(std::atoi(name + 10));
  return true;
}

void Residency::ArmTrace(size_t max_events) {
  std::lock_guard<std::mutex> lock(trace_mu_);
  trace_ = TraceResult();
  trace_max_ = max_events;
  trace_armed_ = true;
  trace_group_ = 0;
}

TraceResult Residency::TakeTrace() {
  std::lock_guard<std::mutex> lock(trace_mu_);
  TraceResult out = std::move(trace_);
  trace_ = TraceResult();
  return out;
}

void Residency::OnDecodeStart(int n_tokens) {
  current_layer_ = -1;
  std::lock_guard<std::mutex> lock(trace_mu_);
  if (trace_armed_ && n_tokens == 1) {
    trace_armed_ = false;
    trace_active_ = true;
    trace_.captured = true;
  }
}

void Residency::OnDecodeEnd() {
  if (trace_active_) {
    std::lock_guard<std::mutex> lock(trace_mu_);
    trace_active_ = false;
  }
  if (policy_ != Policy::Stream) return;
  // The last layer finished with the decode; drop it unless the next token needs it soon.
  if (current_layer_ >= 0 && current_layer_ < static_cast<int>(layers_.size()) && layers_[current_layer_].tier == 1) {
    int pos = PosInStreamed(current_layer_);
    int n = static_cast<int>(streamed_.size());
    if (n > prefetch_depth_ + 1 || pos < 0) DropLayer(current_layer_, true);
  }
  current_layer_ = -1;
}

void Residency::OnLayerStart(int il) {
  if (il < 0 || il >= static_cast<int>(layers_.size())) return;
  int prev = current_layer_;
  current_layer_ = il;
  int n = static_cast<int>(streamed_.size());
  // Only the stream schedule acts at layer boundaries (and only it runs I/O threads); the
  // other policies observe here and act between tokens.
  if (n == 0 || policy_ != Policy::Stream) return;

  // Is this layer's data here? If its prefetch is in flight, wait (a stall); if it was never
  // requested, compute will fault it in (a late arrival).
  if (layers_[il].tier == 1) {
    std::unique_lock<std::mutex> lock(mu_);
    int st = state_[il];
    if (st == 3) {
      std::lock_guard<std::mutex> l2(ev_mu_);
      counters_.prefetch_hits++;
    } else if (st == 1 || st == 2) {
      double t = NowMs();
      // Still queued or loading: its chunks go first, then wait for them.
      std::stable_partition(queue_.begin(), queue_.end(), [il](const Chunk& c) { return c.layer == il; });
      cv_.notify_all();
      cv_.wait(lock, [&] { return state_[il] == 3 || stop_; });
      double dur = NowMs() - t;
      lock.unlock();
      {
        std::lock_guard<std::mutex> l2(ev_mu_);
        counters_.stall_ms += dur;
        counters_.late++;
      }
      Event(3, il, 0, dur);
    } else {
      lock.unlock();
      {
        std::lock_guard<std::mutex> l2(ev_mu_);
        counters_.late++;
      }
      Event(2, il, 0, 0);
    }
  }

  // Read ahead: the next `prefetch_depth_` streamed layers in cyclic order.
  int start = static_cast<int>(std::upper_bound(streamed_.begin(), streamed_.end(), il) - streamed_.begin());
  std::vector<int> window;
  for (int k = 0; k < std::min(prefetch_depth_, n); k++) window.push_back(streamed_[(start + k) % n]);
  for (int l : window) RequestPrefetch(l);

  // Drop the layer that just finished, unless it is about to be needed again.
  if (prev >= 0 && prev != il && layers_[prev].tier == 1 &&
      std::find(window.begin(), window.end(), prev) == window.end()) {
    DropLayer(prev, true);
  }
}

void Residency::RequestPrefetch(int layer) {
  std::lock_guard<std::mutex> lock(mu_);
  if (state_[layer] != 0) return;
  const size_t kChunk = 4u << 20;
  int n = 0;
  for (const auto& r : layers_[layer].ranges)
    for (size_t off = 0; off < r.len; off += kChunk) {
      queue_.push_back({layer, r.addr + off, std::min(kChunk, r.len - off)});
      n++;
    }
  if (n == 0) {
    state_[layer] = 3;
    return;
  }
  state_[layer] = 1;
  pending_[layer] = n;
  started_at_[layer] = NowMs();
  cv_.notify_all();
}

void Residency::IoLoop() {
  for (;;) {
    Chunk c;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
      if (stop_) return;
      c = queue_.front();
      queue_.pop_front();
      state_[c.layer] = 2;
      inflight_++;
    }
    if (madvise(reinterpret_cast<void*>(c.addr), c.len, MADV_POPULATE_READ) != 0) {
      // Older kernels: touch one byte per page.
      volatile const char* p = reinterpret_cast<const char*>(c.addr);
      for (size_t off = 0; off < c.len; off += kPage) (void)p[off];
    }
    bool done = false;
    double dur = 0, bytes = 0;
    {
      std::lock_guard<std::mutex> lock(mu_);
      inflight_--;
      if (--pending_[c.layer] == 0) {
        state_[c.layer] = 3;
        done = true;
        dur = NowMs() - started_at_[c.layer];
        for (const auto& r : layers_[c.layer].ranges) bytes += static_cast<double>(r.len);
      }
    }
    cv_.notify_all();
    if (done) {
      {
        std::lock_guard<std::mutex> l2(ev_mu_);
        counters_.prefetches++;
        counters_.prefetch_bytes += bytes;
      }
      Event(0, c.layer, bytes, dur);
    }
  }
}

double Residency::PrefetchLayerSync(int layer) {
  if (layer < 0 || layer >= static_cast<int>(layers_.size())) return 0;
  double bytes = 0;
  for (const auto& r : layers_[layer].ranges) {
    if (madvise(reinterpret_cast<void*>(r.addr), r.len, MADV_POPULATE_READ) != 0) {
      volatile const char* p = reinterpret_cast<const char*>(r.addr);
      for (size_t off = 0; off < r.len; off += kPage) (void)p[off];
    }
    bytes += static_cast<double>(r.len);
  }
  return bytes;
}

// Both calls are needed: MADV_DONTNEED unmaps our view, POSIX_FADV_DONTNEED frees the clean
// page-cache pages (which a cgroup is charged for). Large page-cache folios can straddle a layer
// boundary and are skipped by fadvise, so the previous streamed layer's file range is advised
// again too.
double Residency::DropLayer(int layer, bool fadvise_neighbours) {
  if (layer < 0 || layer >= static_cast<int>(layers_.size())) return 0;
  double t = NowMs();
  double bytes = 0;
  auto advise_file = [&](const ResidencyLayer& l) {
    for (const auto& r : l.ranges)
      if (r.file >= 0 && r.file < static_cast<int>(fds_.size()))
        posix_fadvise(fds_[r.file], r.file_offset, static_cast<off_t>(r.len), POSIX_FADV_DONTNEED);
  };
  for (const auto& r : layers_[layer].ranges) {
    madvise(reinterpret_cast<void*>(r.addr), r.len, MADV_DONTNEED);
    bytes += static_cast<double>(r.len);
  }
  advise_file(layers_[layer]);
  if (fadvise_neighbours) {
    int pos = PosInStreamed(layer);
    if (pos > 0) advise_file(layers_[streamed_[pos - 1]]);
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (state_[layer] == 3) state_[layer] = 0;
  }
  {
    std::lock_guard<std::mutex> l2(ev_mu_);
    counters_.drops++;
    counters_.dropped_bytes += bytes;
  }
  Event(1, layer, bytes, NowMs() - t);
  return bytes;
}

std::vector<double> Residency::ResidentBytes() {
  std::vector<double> out(layers_.size(), 0);
  for (size_t i = 0; i < layers_.size(); i++) {
    double resident = 0;
    for (const auto& r : layers_[i].ranges) {
      double b = ResidentBytesIn(reinterpret_cast<void*>(r.addr), r.len);
      if (b < 0) {
        resident = -1;
        break;
      }
      resident += b;
    }
    out[i] = resident;
  }
  return out;
}

// Release policies act between tokens: conservative releases the streamed tier's exclusive
// pages; memory-bound and reuse-aware release layers in the order given by the plan (the order
// the next token needs them last, or last use from a graph-trace profile) until the resident
// total is under the target.
void Residency::BetweenTokens() {
  if (policy_ == Policy::Conservative) {
    for (int l : streamed_) DropLayer(l, false);
    return;
  }
  if (policy_ != Policy::MemoryBound && policy_ != Policy::ReuseAware) return;
  std::vector<double> res = ResidentBytes();
  double total = 0;
  for (double r : res) total += std::max(0.0, r);
  for (int l : release_order_) {
    if (total <= static_cast<double>(target_bytes_)) break;
    if (res[l] <= 0) continue;
    DropLayer(l, false);
    total -= res[l];
    std::lock_guard<std::mutex> l2(ev_mu_);
    counters_.released_bytes += res[l];
  }
}

}  // namespace rf
