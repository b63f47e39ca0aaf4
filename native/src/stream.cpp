// The stream schedule's compute side: what the scheduler's eval callback asks before and after
// each node (wait for a unit, point its tensors at the window, give the room back), the learned
// read order, and the counters. Setting it up is in stream_setup.cpp, reading in stream_io.cpp.
#include "stream.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "clock.h"
#include "ggml.h"
#include "pages.h"

namespace rf {

namespace {

// Tokens between drops of the rows-only pages compute faulted in.
constexpr int kRowsDropEvery = 32;

}  // namespace

StreamSchedule::StreamSchedule(StreamEventSink sink) : sink_(std::move(sink)) {}

StreamSchedule::~StreamSchedule() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  io_cv_.notify_all();
  ready_cv_.notify_all();
  for (auto& t : io_)
    if (t.joinable()) t.join();
  // Tensors must never be left pointing into memory that is about to go.
  for (auto& u : units_)
    if (u.pointed) PointAt(u, false);
  for (size_t i = 0; i < pinned_.size(); i++)
    if (pinned_locked_[i]) munlock(reinterpret_cast<void*>(pinned_[i].addr), pinned_[i].len);
  if (slots_map_) munmap(slots_map_, slots_len_);
  for (int fd : fds_)
    if (fd >= 0) close(fd);
  for (int fd : advise_fds_)
    if (fd >= 0) close(fd);
}

int StreamSchedule::UnitsOf(ggml_tensor* t, int* out, int max) const {
  int k = 0;
  for (int i = 0; i < GGML_MAX_SRC && k < max; i++) {
    const ggml_tensor* s = t->src[i];
    if (!s) continue;
    auto it = unit_of_.find(s);
    if (it != unit_of_.end()) out[k++] = it->second.first;
  }
  return k;
}

void StreamSchedule::PointAt(Unit& unit, bool slot) {
  char* base = slot ? slots_ + unit.off : nullptr;
  for (auto& m : unit.members) m.t->data = slot ? static_cast<void*>(base + m.delta) : m.original;
  unit.pointed = slot;
}

// Called for every node before it runs. A node that reads a streamed unit waits for it (and
// asks for it at once when the read-ahead has not reached it), then its tensors are pointed at
// the slot. Every node that reads a weight becomes a split point, so that resident work before
// a streamed unit runs before any wait, and a unit is released as soon as its last node has run.
bool StreamSchedule::Ask(ggml_tensor* t) {
  int us[GGML_MAX_SRC];
  int n = UnitsOf(t, us, GGML_MAX_SRC);
  if (n == 0) {
    // Nothing streams (an MoE whose expert cache serves the experts, the dense part locked):
    // no wait can come, so no node needs to be a split point; each split costs a barrier of
    // the compute threads.
    if (units_.empty()) return false;
    for (int i = 0; i < GGML_MAX_SRC; i++)
      if (t->src[i] && weights_.count(t->src[i])) return true;
    return false;
  }
  for (int k = 0; k < n; k++) {
    int u = us[k];
    Unit& unit = units_[u];
    std::unique_lock<std::mutex> lock(mu_);
    int st = state_[u];
    if (st == kReady) {
      // A failed unit is pointed at its slot too: compute then reads garbage instead of
      // faulting on a file that shrank (SIGBUS), and Computed() stops the graph.
      if (!unit.pointed) PointAt(unit, true);
      lock.unlock();
      std::lock_guard<std::mutex> l(cnt_mu_);
      counters_.hits++;
      continue;
    }
    double t0 = NowMs();
    if (st == kIdle) {
      // Out of order (the first pass, or a graph that uses units in another order): read it
      // now; read-ahead nobody is using gives up its room for it (StartNextLocked).
      urgent_.push_back(u);
      cursor_ = (pos_[u] + 1) % static_cast<int>(order_.size());
      io_cv_.notify_one();
    }
    ready_cv_.wait(lock, [&] { return state_[u] == kReady || stop_; });
    if (state_[u] == kReady && !unit.pointed) PointAt(unit, true);
    lock.unlock();
    double dur = NowMs() - t0;
    {
      std::lock_guard<std::mutex> l(cnt_mu_);
      counters_.stall_ms += dur;
      if (st == kIdle)
        counters_.late++;
      else
        counters_.stalls++;
    }
    sink_(st == kIdle ? 2 : 3, unit.layer, 0, dur);
    Learn(u);
  }
  return true;
}

bool StreamSchedule::Computed(ggml_tensor* t) {
  bool failed = false;
  {
    std::lock_guard<std::mutex> l(cnt_mu_);
    counters_.splits += 1;
  }
  for (int i = 0; i < GGML_MAX_SRC; i++) {
    const ggml_tensor* s = t->src[i];
    if (!s) continue;
    auto it = unit_of_.find(s);
    if (it == unit_of_.end()) continue;
    int u = it->second.first;
    Unit& unit = units_[u];
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (state_[u] != kReady || unit.used[it->second.second]) continue;
      failed = failed || unit.failed;
      unit.used[it->second.second] = 1;
      if (--unit.remaining > 0) continue;
    }
    Release(u);
  }
  return !failed;
}

void StreamSchedule::Release(int u) {
  Unit& unit = units_[u];
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (state_[u] != kReady) return;
    ReleaseLocked(u);
  }
  // Room in the window is work for one I/O thread (it queues the next unit's chunks and wakes others).
  io_cv_.notify_one();
  {
    std::lock_guard<std::mutex> l(cnt_mu_);
    counters_.releases++;
  }
  sink_(1, unit.layer, static_cast<double>(unit.bytes), 0);
}

// Units in the order their first weight was used; once every unit has been seen, that order
// becomes the read order (it starts as the file order, which the common architectures follow).
void StreamSchedule::Learn(int u) {
  if (seen_[u]) {
    std::fill(seen_.begin(), seen_.end(), 0);
    seen_order_.clear();
  }
  seen_[u] = 1;
  seen_order_.push_back(u);
  if (seen_order_.size() != units_.size()) return;
  if (seen_order_ != order_) {
    std::lock_guard<std::mutex> lock(mu_);
    order_ = seen_order_;
    for (size_t i = 0; i < order_.size(); i++) pos_[order_[i]] = static_cast<int>(i);
    cursor_ = (pos_[u] + 1) % static_cast<int>(order_.size());
  }
  std::fill(seen_.begin(), seen_.end(), 0);
  seen_order_.clear();
}

void StreamSchedule::SweepPageCache() {
  for (int fd : advise_fds_) posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
}

void StreamSchedule::BetweenTokens() {
  // Locking the resident weights reads around them, and a read-around still in flight when
  // setup swept the page cache lands after it, in the streamed tensors' pages: sweep again after
  // each of the first passes (locked pages stay; only unmapped cached pages go). On a busy
  // machine such a read can land after the first pass (seen once in CI: one page).
  if (passes_swept_ < kSweptPasses) {
    passes_swept_++;
    SweepPageCache();
  }
  if (random_.empty() || ++tokens_since_rows_drop_ < kRowsDropEvery) return;
  tokens_since_rows_drop_ = 0;
  for (const auto& r : random_) {
    madvise(reinterpret_cast<void*>(r.addr), r.len, MADV_DONTNEED);
    if (r.file >= 0 && r.file < static_cast<int>(advise_fds_.size())) posix_fadvise(advise_fds_[r.file], r.file_offset, static_cast<off_t>(r.len), POSIX_FADV_DONTNEED);
  }
}

StreamCounters StreamSchedule::counters() {
  std::lock_guard<std::mutex> l(cnt_mu_);
  return counters_;
}

std::string StreamSchedule::error() {
  std::lock_guard<std::mutex> l(cnt_mu_);
  return counters_.error;
}

double StreamSchedule::PinnedResidentBytes() const {
  double total = 0;
  for (const auto& r : pinned_) {
    double b = ResidentBytesIn(reinterpret_cast<void*>(r.addr), r.len);
    if (b < 0) return -1;
    total += b;
  }
  return total;
}

}  // namespace rf
