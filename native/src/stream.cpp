#include "stream.h"

#include <pthread.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include "ggml.h"
#include "pages.h"

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

namespace rf {

namespace {

double NowMs() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

int Populate(void* addr, size_t len, int advice) {
  for (int tries = 0; tries < 100; tries++) {
    if (madvise(addr, len, advice) == 0) return 0;
    if (errno != EINTR && errno != EAGAIN) return errno;
  }
  return EAGAIN;
}

// Tokens between drops of the rows-only pages compute faulted in.
constexpr int kRowsDropEvery = 32;
constexpr size_t kHuge = 2u << 20;
// Pinned ranges are locked in steps of this size, the page cache swept between steps.
constexpr size_t kPinStep = 32u << 20;

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

std::string StreamSchedule::Configure(StreamConfig cfg, const std::vector<std::string>& files,
                                      const std::unordered_map<std::string, ggml_tensor*>& tensors) {
  const size_t page = PageSize();
  std::vector<int64_t> sizes;
  // Direct I/O is the default where the file system allows it; RAMFORGE_STREAM_IO=buffered
  // reads through the page cache (dropped right after) instead.
  const char* io = std::getenv("RAMFORGE_STREAM_IO");
  direct_ = !cfg.units.empty() && !(io && std::strcmp(io, "buffered") == 0);
  for (const auto& f : files) {
    int afd = open(f.c_str(), O_RDONLY | O_CLOEXEC);
    if (afd < 0) return "cannot open " + f + ": " + std::strerror(errno);
    advise_fds_.push_back(afd);
    struct stat st;
    if (fstat(afd, &st) != 0) return "cannot stat " + f + ": " + std::strerror(errno);
    sizes.push_back(st.st_size);
    int fd = direct_ ? open(f.c_str(), O_RDONLY | O_CLOEXEC | O_DIRECT) : -1;
    if (fd < 0) {
      // Some file systems (tmpfs, some FUSE) refuse direct I/O: read through the page cache and
      // drop what was read right after.
      direct_ = false;
      fd = dup(afd);
    }
    fds_.push_back(fd);
  }
  // A mix of direct and buffered descriptors would make the slot alignment rules differ per
  // file; if any file refused O_DIRECT, all read buffered.
  if (!direct_)
    for (size_t i = 0; i < fds_.size(); i++) {
      int fl = fcntl(fds_[i], F_GETFL);
      if (fl >= 0 && (fl & O_DIRECT)) fcntl(fds_[i], F_SETFL, fl & ~O_DIRECT);
    }
  block_ = std::max<size_t>(page, 4096);

  for (const auto& kv : tensors) weights_.insert(kv.second);
  size_t largest = 0;
  for (size_t u = 0; u < cfg.units.size(); u++) {
    const auto& spec = cfg.units[u];
    if (spec.file < 0 || spec.file >= static_cast<int>(files.size())) return "a stream unit names a file that is not listed";
    if (spec.tensors.empty()) return "a stream unit has no tensors";
    Unit unit;
    unit.layer = spec.layer;
    unit.file = spec.file;
    int64_t lo = INT64_MAX, hi = 0;
    size_t bytes = 0;
    for (const auto& ts : spec.tensors) {
      if (ts.file_offset < 0 || ts.file_offset + static_cast<int64_t>(ts.bytes) > sizes[spec.file])
        return "stream tensor '" + ts.name + "' lies outside its file";
      lo = std::min(lo, ts.file_offset);
      hi = std::max(hi, ts.file_offset + static_cast<int64_t>(ts.bytes));
      bytes += ts.bytes;
    }
    unit.read_offset = lo & ~static_cast<int64_t>(block_ - 1);
    int64_t end = (hi + static_cast<int64_t>(block_) - 1) & ~static_cast<int64_t>(block_ - 1);
    unit.read_len = static_cast<size_t>(end - unit.read_offset);
    unit.bytes = bytes;
    if (unit.read_len > (1ull << 32)) return "a stream unit is larger than 4 GiB";
    for (const auto& ts : spec.tensors) {
      auto it = tensors.find(ts.name);
      if (it == tensors.end()) return "stream unit names an unknown tensor '" + ts.name + "'";
      ggml_tensor* t = it->second;
      if (ggml_nbytes(t) != ts.bytes) return "stream tensor '" + ts.name + "' has another size than the model's";
      if (unit_of_.count(t)) return "tensor '" + ts.name + "' is in two stream units";
      unit_of_[t] = {static_cast<int>(u), static_cast<int>(unit.members.size())};
      unit.members.push_back({t, t->data, static_cast<size_t>(ts.file_offset - unit.read_offset)});
    }
    unit.used.assign(unit.members.size(), 0);
    largest = std::max(largest, unit.read_len);
    units_.push_back(std::move(unit));
  }
  const int n = static_cast<int>(units_.size());
  order_.resize(n);
  pos_.resize(n);
  for (int i = 0; i < n; i++) order_[i] = pos_[i] = i;
  state_.assign(n, kIdle);
  seen_.assign(n, 0);

  // The window: slots mapped and charged once, for the whole run, in transparent huge pages.
  // Direct reads into scattered 4 KiB pages are split by the device's segment limit into
  // ~0.5-1 MiB requests; into 2 MiB pages a 4 MiB read is one request (measured here: 1.2-1.8
  // GB/s against 4.4-4.9 GB/s). Huge pages also spare compute the TLB misses.
  if (n > 0) {
    // Slots need not start on a huge page: a read into a run of huge pages is one request
    // whatever its offset in them; only the window as a whole is aligned.
    largest_ = (largest + page - 1) & ~(page - 1);
    // At least two of the largest unit: one in use while the next is read.
    size_t used = std::max<size_t>(2 * largest_, (cfg.window_bytes + page - 1) & ~(page - 1));
    ring_bytes_ = used;
    slots_len_ = used + kHuge;
    void* m = mmap(nullptr, slots_len_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) return std::string("cannot map the streaming window: ") + std::strerror(errno);
    slots_map_ = static_cast<char*>(m);
    slots_ = reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(m) + kHuge - 1) & ~static_cast<uintptr_t>(kHuge - 1));
    madvise(slots_, used, MADV_HUGEPAGE);
    if (Populate(slots_, used, MADV_POPULATE_WRITE) != 0) std::memset(slots_, 0, used);
    std::lock_guard<std::mutex> l(cnt_mu_);
    counters_.slot_bytes = static_cast<double>(used);
    counters_.slots = static_cast<int>(used / largest_);
  }

  // Streamed tensors are read into the window, never through the mapping: whatever of them the
  // mapping holds (a prefaulted load, an earlier run's pages) is unmapped, so the sweep below
  // can free it. Only whole pages inside each tensor: edge pages may be a neighbour's.
  for (const auto& u : units_)
    for (const auto& m : u.members) {
      uintptr_t a = (reinterpret_cast<uintptr_t>(m.original) + page - 1) & ~(page - 1);
      uintptr_t b = (reinterpret_cast<uintptr_t>(m.original) + ggml_nbytes(m.t)) & ~(page - 1);
      if (b > a) madvise(reinterpret_cast<void*>(a), b - a, MADV_DONTNEED);
    }

  // token_embd with a separate output head: one row per token; read-around would pull
  // megabytes into the cap for every row.
  random_ = cfg.random;
  for (const auto& r : random_) madvise(reinterpret_cast<void*>(r.addr), r.len, MADV_RANDOM);

  // Resident weights are locked, so no reclaim can take them; where the limit on locked memory
  // forbids it they are read once and held by the plan's headroom alone.
  pinned_ = cfg.pinned;
  pinned_locked_.assign(pinned_.size(), false);
  double pinned = 0, locked = 0;
  int lock_errno = 0;
  // Reading the pinned ranges reads around them too (the model's mapping is advised
  // sequential), into streamed tensors nobody maps. Every few tens of MiB, every cached page of
  // the model that is not mapped is freed (never a pinned one), so that the reads never fill
  // the cap and make the kernel reclaim.
  size_t since_sweep = 0;
  auto sweep = [&] {
    for (int fd : advise_fds_) posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    since_sweep = 0;
  };
  for (size_t i = 0; i < pinned_.size(); i++) {
    pinned += static_cast<double>(pinned_[i].len);
    for (size_t off = 0; off < pinned_[i].len; off += kPinStep) {
      void* a = reinterpret_cast<void*>(pinned_[i].addr + off);
      size_t len = std::min(kPinStep, pinned_[i].len - off);
      if (lock_errno == 0 && mlock(a, len) == 0) {
        locked += static_cast<double>(len);
      } else {
        if (lock_errno == 0) lock_errno = errno;
        Populate(a, len, MADV_POPULATE_READ);
      }
      if ((since_sweep += len) >= kPinStep) sweep();
    }
    pinned_locked_[i] = lock_errno == 0;
  }
  sweep();
  {
    std::lock_guard<std::mutex> l(cnt_mu_);
    counters_.pinned_bytes = pinned;
    counters_.pinned_locked_bytes = locked;
    counters_.lock_error = lock_errno ? std::string("mlock: ") + std::strerror(lock_errno) : "";
    counters_.direct_io = direct_;
  }
  chunk_ = std::max(block_, (cfg.io_chunk_bytes + block_ - 1) & ~(block_ - 1));
  int threads = std::max(1, std::min(8, cfg.io_threads));
  if (n > 0)
    for (int i = 0; i < threads; i++) io_.emplace_back([this] { IoLoop(); });
  return "";
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

// Gives a unit's window room back; the ring's tail moves past every freed unit at its front.
void StreamSchedule::ReleaseLocked(int u) {
  Unit& unit = units_[u];
  if (unit.pointed) PointAt(unit, false);
  unit.placed = false;
  state_[u] = kIdle;
  while (!live_.empty() && !units_[live_.front()].placed) live_.pop_front();
  if (live_.empty()) head_ = tail_ = 0;
  else tail_ = units_[live_.front()].off;
}

// Room for `len` bytes at the ring's head (wrapping to its start when the end is too short),
// or false. Units are read and used in a cycle, so the room frees in the order it was taken.
bool StreamSchedule::PlaceLocked(int u, size_t len) {
  size_t at;
  if (live_.empty()) {
    at = 0;
  } else if (head_ > tail_) {
    if (ring_bytes_ - head_ >= len) at = head_;
    else if (tail_ >= len) at = 0;
    else return false;
  } else if (head_ < tail_) {
    if (tail_ - head_ >= len) at = head_;
    else return false;
  } else {
    return false;  // head == tail with units live: full
  }
  if (len > ring_bytes_) return false;
  Unit& unit = units_[u];
  unit.off = at;
  unit.placed = true;
  head_ = at + len == ring_bytes_ ? 0 : at + len;
  if (live_.empty()) tail_ = at;
  live_.push_back(u);
  return true;
}

// The unit compute is waiting for, else the next idle unit of the cycle, when the window has
// room for it: small units are read several at a time, so the device always has requests.
// Its reads are queued in chunks so that several requests keep the device busy.
bool StreamSchedule::StartNextLocked() {
  int u = -1;
  bool urgent = false;
  while (!urgent_.empty() && u < 0) {
    int c = urgent_.front();
    if (state_[c] == kIdle) {
      u = c;
      urgent = true;
    } else {
      urgent_.pop_front();
    }
  }
  const int n = static_cast<int>(order_.size());
  int next_cursor = cursor_;
  for (int k = 0; k < n && u < 0; k++) {
    int c = order_[next_cursor];
    next_cursor = (next_cursor + 1) % n;
    if (state_[c] == kIdle) u = c;
  }
  if (u < 0) return false;
  Unit& unit = units_[u];
  if (!PlaceLocked(u, unit.read_len)) {
    if (!urgent) return false;
    // Compute waits for this one: read-ahead that nobody uses yet makes room.
    for (int v : std::vector<int>(live_.begin(), live_.end()))
      if (v != u && state_[v] == kReady && !units_[v].pointed) ReleaseLocked(v);
    if (!PlaceLocked(u, unit.read_len)) return false;
  }
  if (urgent) urgent_.pop_front();
  else cursor_ = next_cursor;
  state_[u] = kLoading;
  unit.used.assign(unit.members.size(), 0);
  unit.remaining = static_cast<int>(unit.members.size());
  unit.failed = false;
  unit.started = NowMs();
  unit.chunks_left = 0;
  for (size_t off = 0; off < unit.read_len; off += chunk_) {
    chunks_.push_back({u, off, std::min(chunk_, unit.read_len - off)});
    unit.chunks_left++;
  }
  return true;
}

void StreamSchedule::IoLoop() {
  pthread_setname_np(pthread_self(), "ramforge-io");
  for (;;) {
    Chunk c;
    {
      std::unique_lock<std::mutex> lock(mu_);
      io_cv_.wait(lock, [&] { return stop_ || !chunks_.empty() || StartNextLocked(); });
      if (stop_) return;
      c = chunks_.front();
      chunks_.pop_front();
      // More chunks of the unit just started: the other threads take them.
      if (!chunks_.empty()) io_cv_.notify_all();
      if (in_flight_++ == 0) busy_since_ = NowMs();
    }
    ReadChunk(c);
  }
}

void StreamSchedule::ReadChunk(const Chunk& c) {
  Unit& unit = units_[c.unit];
  char* dst = slots_ + unit.off + c.off;
  int fd = fds_[unit.file];
  int64_t off = unit.read_offset + static_cast<int64_t>(c.off);
  size_t done = 0;
  std::string err;
  while (done < c.len) {
    ssize_t r = pread(fd, dst + done, c.len - done, off + static_cast<int64_t>(done));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      err = std::string("reading the model failed: ") + std::strerror(errno);
      break;
    }
    if (r == 0) break;  // end of file: the rest of the block is past the last tensor
    done += static_cast<size_t>(r);
  }
  // Short of the unit's tensor bytes means the file shrank under us.
  if (err.empty() && done < c.len) {
    size_t tensor_end = 0;
    for (const auto& m : unit.members) tensor_end = std::max(tensor_end, m.delta + ggml_nbytes(m.t));
    if (c.off + done < tensor_end) err = "the model file ended early (truncated while running?)";
  }
  if (!direct_) posix_fadvise(fd, off, static_cast<off_t>(c.len), POSIX_FADV_DONTNEED);
  bool finished = false;
  double dur = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!err.empty()) unit.failed = true;
    if (--in_flight_ == 0) {
      std::lock_guard<std::mutex> l(cnt_mu_);
      counters_.busy_ms += NowMs() - busy_since_;
    }
    if (--unit.chunks_left == 0) {
      state_[c.unit] = kReady;
      finished = true;
      dur = NowMs() - unit.started;
      // A unit compute waits for may not have found room while this one was still loading.
      if (!urgent_.empty()) io_cv_.notify_one();
    }
  }
  if (!err.empty()) {
    std::lock_guard<std::mutex> l(cnt_mu_);
    counters_.read_errors++;
    if (counters_.error.empty()) counters_.error = err;
  }
  if (finished) {
    ready_cv_.notify_all();
    {
      std::lock_guard<std::mutex> l(cnt_mu_);
      counters_.reads++;
      counters_.read_bytes += static_cast<double>(unit.bytes);
      counters_.read_ms += dur;
    }
    sink_(0, unit.layer, static_cast<double>(unit.bytes), dur);
  }
}

void StreamSchedule::BetweenTokens() {
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
