#include "residency.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "clock.h"
#include "ggml.h"
#include "pages.h"

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

namespace rf {

namespace {
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
  experts_.reset();
  stream_.reset();
  for (int fd : fds_)
    if (fd >= 0) close(fd);
}

double Residency::Now() const { return NowMs() - t0_; }

std::string Residency::Configure(Policy policy, std::vector<ResidencyLayer> layers, const std::vector<std::string>& files,
                                 size_t target_bytes, std::vector<int> release_order, StreamConfig stream,
                                 ExpertConfig experts, const std::unordered_map<std::string, ggml_tensor*>& tensors) {
  // The old schedule's threads stop (and its locks go) before anything changes under them.
  experts_.reset();
  // What the graphs compute where may change (an expert cache's VRAM tier moves expert ops to
  // the GPU): every batch size is new again.
  seen_sizes_.clear();
  stream_.reset();
  for (int fd : fds_)
    if (fd >= 0) close(fd);
  fds_.clear();
  for (const auto& f : files) {
    int fd = open(f.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return "cannot open " + f + ": " + std::strerror(errno);
    fds_.push_back(fd);
  }
  policy_ = policy;
  layers_ = std::move(layers);
  target_bytes_ = target_bytes;
  streamed_.clear();
  for (const auto& l : layers_)
    if (l.tier == 1) streamed_.push_back(l.index);
  std::sort(streamed_.begin(), streamed_.end());
  // Default release order for a cyclic scan: the layer the next token needs last goes first.
  release_order_ = release_order.empty() ? std::vector<int>(streamed_.rbegin(), streamed_.rend()) : std::move(release_order);
  for (int l : release_order_)
    if (l < 0 || l >= static_cast<int>(layers_.size())) return "release order names layer " + std::to_string(l) + ", which does not exist";
  if (policy_ == Policy::Stream) {
    stream_ = std::make_unique<StreamSchedule>([this](int kind, int layer, double bytes, double dur) { Event(kind, layer, bytes, dur); });
    std::string err = stream_->Configure(std::move(stream), files, tensors);
    if (!err.empty()) {
      stream_.reset();
      return err;
    }
    if (!experts.tensors.empty()) {
      experts_ = std::make_unique<ExpertCache>([this](int kind, int layer, double bytes, double dur) { Event(kind, layer, bytes, dur); });
      err = experts_->Configure(std::move(experts), files, tensors);
      if (!err.empty()) {
        experts_.reset();
        stream_.reset();
        return err;
      }
    }
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

std::string Residency::StreamError() {
  std::string e = stream_ ? stream_->error() : "";
  if (e.empty() && experts_) e = experts_->error();
  return e;
}

StreamCounters Residency::stream_counters() { return stream_ ? stream_->counters() : StreamCounters(); }

double Residency::PinnedResidentBytes() { return stream_ ? stream_->PinnedResidentBytes() : -1; }

bool Residency::EvalCallback(ggml_tensor* t, bool ask, void* user) {
  auto* self = static_cast<Residency*>(user);
  // ask==true comes for each node before it runs (the scheduler computes up to the first node
  // we ask for), ask==false after a node we asked for has run.
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
  if (ask && self->remote_) self->remote_->See(t);
  if (ask) {
    // Both halves see every node: the expert cache first (it may wait for experts), then the
    // stream schedule (it may wait for a unit).
    bool need = self->experts_ ? self->experts_->Ask(t) : false;
    if (self->route_ && self->route_->Ask(t)) need = true;
    if (self->stream_ && self->stream_->Ask(t)) need = true;
    return need || self->isolate_;
  }
  // The tap first: a replayed selection must be in place before the expert cache routes it.
  if (self->route_) self->route_->Computed(t);
  bool ok = self->experts_ ? self->experts_->Computed(t) : true;
  if (self->stream_ && !self->stream_->Computed(t)) ok = false;
  return ok;
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

void Residency::OnDecodeStart(int n_tokens, int phase) {
  if (route_) route_->OnDecodeStart(n_tokens, phase);
  if (guard_sizes_) {
    isolate_ = std::find(seen_sizes_.begin(), seen_sizes_.end(), n_tokens) == seen_sizes_.end();
    if (isolate_) seen_sizes_.push_back(n_tokens);
  }
  std::lock_guard<std::mutex> lock(trace_mu_);
  if (trace_armed_ && n_tokens == 1) {
    trace_armed_ = false;
    trace_active_ = true;
    trace_.captured = true;
  }
}

std::string Residency::ConfigureRouting(RouteConfig cfg) {
  auto tap = std::make_unique<RouteTap>();
  std::string err = tap->Configure(std::move(cfg));
  if (err.empty()) route_ = std::move(tap);
  return err;
}

void Residency::OnDecodeEnd() {
  if (remote_) remote_->EndPass();
  if (trace_active_) {
    std::lock_guard<std::mutex> lock(trace_mu_);
    trace_active_ = false;
  }
}

double Residency::PrefetchLayerSync(int layer) {
  if (layer < 0 || layer >= static_cast<int>(layers_.size())) return 0;
  double bytes = 0;
  for (const auto& r : layers_[layer].ranges) {
    // No fallback that touches pages: on a file truncated under us that would be a SIGBUS.
    if (madvise(reinterpret_cast<void*>(r.addr), r.len, MADV_POPULATE_READ) == 0) bytes += static_cast<double>(r.len);
  }
  return bytes;
}

// Both calls are needed: MADV_DONTNEED unmaps the model's view, POSIX_FADV_DONTNEED frees the
// clean page-cache pages (which a cgroup is charged for). Large page-cache folios can straddle a
// layer boundary and are skipped by fadvise, so the previous streamed layer's file range is
// advised again too.
double Residency::DropLayer(int layer, bool fadvise_neighbours, int kind) {
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
    auto it = std::lower_bound(streamed_.begin(), streamed_.end(), layer);
    if (it != streamed_.end() && *it == layer && it != streamed_.begin()) advise_file(layers_[*(it - 1)]);
  }
  {
    std::lock_guard<std::mutex> l2(ev_mu_);
    counters_.drops++;
    counters_.dropped_bytes += bytes;
  }
  Event(kind, layer, bytes, NowMs() - t);
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
  if (stream_) stream_->BetweenTokens();
  if (policy_ == Policy::Conservative) {
    for (int l : streamed_) DropLayer(l, false, 4);
    return;
  }
  if (policy_ != Policy::MemoryBound && policy_ != Policy::ReuseAware) return;
  std::vector<double> res = ResidentBytes();
  double total = 0;
  for (double r : res) total += std::max(0.0, r);
  for (int l : release_order_) {
    if (total <= static_cast<double>(target_bytes_)) break;
    if (res[l] <= 0) continue;
    DropLayer(l, false, 4);
    total -= res[l];
    std::lock_guard<std::mutex> l2(ev_mu_);
    counters_.released_bytes += res[l];
  }
}

}  // namespace rf
